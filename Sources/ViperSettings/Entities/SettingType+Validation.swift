public import SettingsAPI

/// Why a value does not fit a type: a reason for people, e.g. "must be within 1..65535".
public struct ValueRejection: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { self.reason }
}

extension SettingType {
    /// A pattern as an error shows it: whole up to 100 characters, else its beginning and where to read the rest (an
    /// address pattern of a thousand characters says less than the key's summary).
    static func shown(pattern: String) -> String {
        guard pattern.count > 100 else { return pattern }
        return
            "\(pattern.prefix(48))… (\(pattern.count) characters: settingsctl explain KEY shows it, and what the key takes)"
    }

    /// Checks a typed JSON value against this type and its constraints; integers are accepted for doubles, but an
    /// `int` takes no `2.0` or `2e0`, as a stored value or a schema's default.
    public func value(fromJSON json: JSONValue) throws(ValueRejection) -> SettingValue {
        switch (self, json) {
        case (.bool, .bool(let value)): return .bool(value)
        case (.int, .int(let value)): return try self.checked(.int(value))
        case (.int(let range), .double(let value)) where value.rounded() == value && value.isFinite:
            // A whole number the JSON reader could not hold in 64 bits (it reads it as a double: -2^63 - 1 becomes
            // -2^63), or one written with '.' or an exponent, which a stored value or a schema's default may not be
            // either.
            guard value > -0x1p63 && value < 0x1p63 else {
                // Shown as the reader holds it, -2^63 itself: say why that is beyond too.
                guard value == -0x1p63 else { throw Self.beyond64Bits(range) }
                throw ValueRejection(
                    Self.beyond64Bits(range).reason
                        + " (a JSON integer beyond 64 bits is read as a double, and one just below the range rounds to"
                        + " \(Int64.min), the lowest int, which is taken written as an integer)"
                )
            }
            throw ValueRejection(SchemaField.integerProblem(value))
        case (.double, .int(let value)): return try self.checked(.double(Double(value)))
        case (.double, .double(let value)): return try self.checked(.double(value))
        case (.string, .string(let value)): return try self.checked(.string(value))
        case (.strings, .array(let elements)):
            var strings: [String] = []
            for element in elements {
                guard let string = element.stringValue else {
                    throw ValueRejection(
                        "expected a list of strings, found \(element.typeName.withArticle) in the list"
                    )
                }
                strings.append(string)
            }
            return try self.checked(.strings(strings))
        default:
            throw ValueRejection("expected \(self.expected), found \(json.typeName.withArticle)")
        }
    }

    /// Reads text typed on a command line by this type: `8080`, `true`, `1.25`, `manual`, `stable,beta` or a JSON
    /// array `["stable","beta"]`.
    ///
    /// Numbers are decimal (`80`, `-1`, `+2`; a double also `1.25`, `.5`, `1e3`), never hexadecimal (`0x50`,
    /// `0x1p1`), `inf` or `nan`. Blanks around a bool, an int, a double or a word of a list are ignored (`' 80'`,
    /// `' true'`); a string is taken as it is, blanks included.
    public func value(fromText text: String) throws(ValueRejection) -> SettingValue {
        switch self {
        case .bool:
            switch text.trimmingSpaces.lowercased() {
            case "true", "yes", "on", "1": return .bool(true)
            case "false", "no", "off", "0": return .bool(false)
            default: throw ValueRejection("expected true or false (also yes/no, on/off, 1/0)")
            }
        case .int(let range):
            let digits = text.trimmingSpaces
            guard let value = Int64(digits) else {
                // A whole number, too large for 64 bits: say so, with the range it must be in.
                let sign = digits.first == "-" || digits.first == "+" ? 1 : 0
                if digits.count > sign, digits.dropFirst(sign).allSatisfy(\.isASCIIDigit) {
                    throw Self.beyond64Bits(range)
                }
                // A fraction or an exponent (`1e3`, `2.0`) is for a double: an int is written in digits, as in a
                // stored value or a schema.
                if digits.contains(where: { ".eE".contains($0) }), let number = Double(digits), number.isFinite,
                    number.rounded() == number, abs(number) < 0x1p63
                {
                    throw ValueRejection(
                        "expected a whole number in digits (write \(Int64(number)): an int takes no '.' or exponent)"
                    )
                }
                throw ValueRejection("expected a whole number")
            }
            return try self.checked(.int(value))
        case .double:
            // Decimal only: Double(_:) also reads hexadecimal (0x1p1), inf and nan.
            let number = text.trimmingSpaces
            guard number.allSatisfy({ $0.isASCIIDigit || "+-.eE".contains($0) }), let value = Double(number) else {
                throw ValueRejection("expected a number")
            }
            guard value.isFinite else {
                throw ValueRejection("is beyond the range of a 64-bit floating-point number (about ±1.8e308)")
            }
            if value == 0,
                number.prefix(while: { $0 != "e" && $0 != "E" }).contains(where: { ("1"..."9").contains($0) })
            {
                throw ValueRejection(
                    "is too small for a 64-bit floating-point number (below about 4.9e-324), it would be stored as 0"
                )
            }
            return try self.checked(.double(value))
        case .string:
            return try self.checked(.string(text))
        case .strings:
            let trimmed = text.trimmingSpaces
            if trimmed.hasPrefix("[") {
                guard let json = try? JSONValue(parsing: trimmed) else {
                    throw ValueRejection("expected a JSON array of strings or comma-separated words")
                }
                return try self.value(fromJSON: json)
            }
            if trimmed.isEmpty { return try self.checked(.strings([])) }
            // gsettings habits, which would be stored as they are written: a GVariant (`@as []`), a quoted word.
            if let space = trimmed.firstIndex(of: " "), trimmed.hasPrefix("@"),
                trimmed[trimmed.index(after: trimmed.startIndex)..<space].allSatisfy({ $0.isLetter && $0.isASCII })
            {
                throw ValueRejection(
                    "expected a JSON array of strings or comma-separated words, not GVariant text (@as …): e.g."
                        + " [\"de\", \"fr\"] or de, fr"
                )
            }
            let words = trimmed.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingSpaces }
            // A word in quotes, or a text that opens with one (`"de,en"` is not one word: it is two with quotes).
            if let quoted = words.firstIndex(where: { word in
                word.count >= 2 && ["\"", "'"].contains { word.hasPrefix($0) && word.hasSuffix($0) }
            }) ?? (trimmed.hasPrefix("\"") || trimmed.hasPrefix("'") ? 0 : nil) {
                throw ValueRejection(
                    "word \(quoted + 1) of the list is in quotes, which would be stored as part of it: write the words"
                        + " without quotes (de, fr), or the list as a JSON array ([\"de\", \"fr\"])"
                )
            }
            if let empty = words.firstIndex(where: \.isEmpty) {
                throw ValueRejection(
                    "word \(empty + 1) of the list is empty; write an empty string, or one with a comma, as a JSON array"
                        + " (e.g. [\"a\", \"\"])"
                )
            }
            return try self.checked(.strings(words))
        }
    }

    /// Checks a value of the right type against the constraints.
    public func checked(_ value: SettingValue) throws(ValueRejection) -> SettingValue {
        switch (self, value) {
        case (.bool, .bool):
            return value
        case (.strings(let maxItems, let maxLength, let pattern, let maxSize), .strings(let texts)):
            if let maxSize, value.byteSize > maxSize { throw Self.tooLarge(value.byteSize, limit: maxSize) }
            if let maxItems, texts.count > maxItems {
                throw ValueRejection("must have at most \(maxItems) items, has \(texts.count)")
            }
            if let maxLength, let index = texts.firstIndex(where: { $0.unicodeScalars.count > maxLength }) {
                throw ValueRejection(
                    "item \(index + 1) must be at most \(maxLength) characters, has \(texts[index].unicodeScalars.count)"
                )
            }
            if texts.contains(where: Self.hasControlCharacters) {
                throw ValueRejection("must not contain control characters (such as newlines)")
            }
            if let pattern, let program = try? PatternProgram.compiled(pattern) {
                // One bound for the whole value, over its items.
                var budget = PatternProgram.stepLimit
                for (index, text) in texts.enumerated() {
                    switch program.matches(text, budget: &budget) {
                    case true: continue
                    case false:
                        throw ValueRejection("item \(index + 1) must match the pattern \(Self.shown(pattern: pattern))")
                    case nil: throw Self.tooCostly(pattern, item: index + 1)
                    }
                }
            } else if pattern != nil, !texts.isEmpty {
                throw ValueRejection("item 1 must match the pattern \(Self.shown(pattern: pattern!))")
            }
            return value
        case (.int(let range), .int(let number)):
            if let range, !range.contains(number) {
                throw ValueRejection("must be within \(range.lowerBound)..\(range.upperBound)")
            }
            return value
        case (.double(let range), .double(let number)):
            guard number.isFinite else { throw ValueRejection("must be a finite number") }
            if let range, !range.contains(number) {
                throw ValueRejection("must be within \(range.lowerBound)..\(range.upperBound)")
            }
            return value
        case (.double, .int(let number)):
            return try self.checked(.double(Double(number)))
        case (.string(let choices, let pattern, let maxLength, let maxSize), .string(let text)):
            if let maxSize, text.utf8.count > maxSize { throw Self.tooLarge(text.utf8.count, limit: maxSize) }
            if Self.hasControlCharacters(text) {
                throw ValueRejection("must not contain control characters (such as newlines)")
            }
            // A choice exactly, byte for byte: a value that merely looks like one (another Unicode spelling) is not
            // one of them, as a stored value is compared.
            if let choices, !choices.contains(where: { $0.utf8.elementsEqual(text.utf8) }) {
                throw ValueRejection("must be one of \(Self.listed(choices: choices))")
            }
            if let maxLength, text.unicodeScalars.count > maxLength {
                throw ValueRejection("must be at most \(maxLength) characters, has \(text.unicodeScalars.count)")
            }
            if let pattern {
                switch Self.matcher(pattern)(text) {
                case true: break
                case false: throw ValueRejection("must match the pattern \(Self.shown(pattern: pattern))")
                case nil: throw Self.tooCostly(pattern, item: nil)
                }
            }
            return value
        default:
            throw ValueRejection("expected \(self.expected), found \(value.typeDescription)")
        }
    }

    /// A whole number too large for 64 bits, and the range the key takes.
    private static func beyond64Bits(_ range: ClosedRange<Int64>?) -> ValueRejection {
        guard let range else {
            return ValueRejection("is beyond the 64-bit integer range (\(Int64.min)..\(Int64.max))")
        }
        return ValueRejection(
            "is beyond the 64-bit integer range; must be within \(range.lowerBound)..\(range.upperBound)"
        )
    }

    private static func tooLarge(_ size: Int, limit: Int) -> ValueRejection {
        ValueRejection("is \(size) bytes long, more than the limit of \(limit) bytes (max-value-size)")
    }

    /// Whether a whole text matches the regular expression `pattern`, in linear time: its program was compiled
    /// when the schema was loaded, and is taken from the cache; a pattern the matcher refuses matches nothing.
    /// `nil` when telling would take the matcher more than ``PatternProgram/stepLimit`` steps.
    private static func matcher(_ pattern: String) -> (String) -> Bool? {
        guard let program = try? PatternProgram.compiled(pattern) else { return { _ in false } }
        return { program.matches($0) }
    }

    /// A value too long to check against `pattern` in bounded time (the matcher's work is the value's length times
    /// the live part of the pattern): refused, so that one check cannot hold the daemon for seconds.
    private static func tooCostly(_ pattern: String, item: Int?) -> ValueRejection {
        ValueRejection(
            "\(item.map { "up to item \($0), the list is" } ?? "is") too long to check against the pattern"
                + " \(Self.shown(pattern: pattern)) (more than \(PatternProgram.stepLimit) steps of the matcher): a"
                + " shorter value, or a simpler pattern in the schema"
        )
    }

    /// Unicode's control characters (category Cc): C0, DEL and C1, whose U+009B starts a terminal escape sequence
    /// as ESC [ does.
    private static func hasControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }

    private var expected: String {
        switch self {
        case .bool: "a boolean"
        case .int: "an integer"
        case .double: "a number"
        case .string: "a string"
        case .strings: "a list of strings"
        }
    }
}

extension SettingValue {
    fileprivate var typeDescription: String {
        switch self {
        case .bool: "a boolean"
        case .int: "an integer"
        case .double: "a number"
        case .string: "a string"
        case .strings: "a list of strings"
        }
    }
}

extension String {
    /// The name with its indefinite article: "an integer", "a string"; "null" stays as it is.
    fileprivate var withArticle: String {
        guard let first = self.first, self != "null" else { return self }
        return ("aeiou".contains(first) ? "an " : "a ") + self
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

extension StringProtocol {
    /// The text without blanks (white space) at its ends.
    var trimmingSpaces: String {
        var slice = Substring(self)
        while slice.first?.isWhitespace == true { slice = slice.dropFirst() }
        while slice.last?.isWhitespace == true { slice = slice.dropLast() }
        return String(slice)
    }
}

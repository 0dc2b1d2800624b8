/// Why JSON text could not be parsed, and where (1-based line and column).
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong, e.g. "expected ',' or '}' after an object member".
    public var reason: String
    /// The 1-based line of the offending byte.
    public var line: Int
    /// The 1-based column of the offending byte.
    public var column: Int

    public var description: String { "line \(self.line), column \(self.column): \(self.reason)" }
}

/// The parser is strict RFC 8259 with these decisions, each an error naming line and column:
/// - arrays and objects nest at most ``JSONValue/maximumDepth`` (128) deep;
/// - an object with the same key twice is rejected (the error names the key), so that no reader takes the
///   first `method` of a message and another the last;
/// - a `\u` escape of a lone UTF-16 surrogate is rejected, as is text that is not UTF-8;
/// - a number too large for a finite `Double` (`1e400`) is rejected; an integer past `Int64` is a `Double`.
extension JSONValue {
    /// The deepest nesting of arrays and objects the parser accepts.
    public static let maximumDepth = 128

    /// Parses one JSON value from UTF-8 text; whitespace may surround it, nothing else may follow.
    public init(parsing text: String) throws(JSONParseError) {
        try self.init(parsing: Array(text.utf8))
    }

    /// Parses one JSON value from UTF-8 bytes; whitespace may surround it, nothing else may follow.
    public init(parsing bytes: [UInt8]) throws(JSONParseError) {
        self = try bytes.withUnsafeBufferPointer { buffer throws(JSONParseError) in try JSONValue(parsing: buffer) }
    }

    /// Parses one JSON value from raw UTF-8 bytes, such as a network buffer's readable bytes.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(JSONParseError) {
        try self.init(parsing: bytes.assumingMemoryBound(to: UInt8.self))
    }

    /// Parses one JSON value from a buffer of UTF-8 bytes.
    public init(parsing buffer: UnsafeBufferPointer<UInt8>) throws(JSONParseError) {
        var parser = JSONParser(bytes: buffer)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == buffer.count else { throw parser.unexpected("unexpected text after the JSON value") }
        self = value
    }
}

private struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    func error(_ reason: String) -> JSONParseError {
        var line = 1
        var column = 1
        var afterReturn = false
        // Lines end in LF, CR LF or a CR alone (a file saved with old Mac line ends).
        for byte in self.bytes[0..<Swift.min(self.index, self.bytes.count)] {
            if byte == UInt8(ascii: "\n") {
                if !afterReturn { line += 1 }
                column = 1
            } else if byte == UInt8(ascii: "\r") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            afterReturn = byte == UInt8(ascii: "\r")
        }
        return JSONParseError(reason: reason, line: line, column: column)
    }

    /// `reason` (what should be here), then what is here instead: `expected a value, found 'x'`. A character that
    /// cannot be seen is named by its code point, a byte order mark as such.
    func unexpected(_ reason: String) -> JSONParseError {
        self.error("\(reason), found \(self.found)")
    }

    /// What is at the current position, for people.
    private var found: String {
        guard self.index < self.bytes.count else { return "the end of the input" }
        var iterator = self.bytes[self.index...].makeIterator()
        var decoder = Unicode.UTF8()
        guard case .scalarValue(let scalar) = decoder.decode(&iterator) else {
            return "the byte 0x\(String(self.bytes[self.index], radix: 16, uppercase: true)), which is not UTF-8"
        }
        var code = String(scalar.value, radix: 16, uppercase: true)
        code = "U+" + String(repeating: "0", count: max(0, 4 - code.count)) + code
        if scalar == "\u{FEFF}" { return "a byte order mark (\(code)): save the file without it" }
        if scalar.properties.generalCategory == .control || QuotedText.isInvisible(scalar)
            || scalar.properties.isWhitespace
        {
            return code
        }
        return scalar.isASCII ? "'\(Character(scalar))'" : "'\(Character(scalar))' (\(code))"
    }

    mutating func skipWhitespace() {
        while self.index < self.bytes.count {
            switch self.bytes[self.index] {
            case 0x20, 0x0A, 0x0D, 0x09: self.index += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard self.index < self.bytes.count else { throw self.error("unexpected end of input, expected a value") }
        switch self.bytes[self.index] {
        case UInt8(ascii: "{"): return try self.parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try self.parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try self.parseString())
        case UInt8(ascii: "t"):
            try self.expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try self.expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try self.expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try self.parseNumber()
        default: throw self.unexpected("expected a value")
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        guard self.index + count <= self.bytes.count,
            UnsafeBufferPointer(start: literal.utf8Start, count: count).elementsEqual(
                self.bytes[self.index..<self.index + count]
            )
        else { throw self.error("invalid literal, expected '\(literal)'") }
        self.index += count
    }

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= JSONValue.maximumDepth else { throw self.error("nesting deeper than \(JSONValue.maximumDepth)") }
        self.index += 1
        self.skipWhitespace()
        if self.index < self.bytes.count && self.bytes[self.index] == UInt8(ascii: "}") {
            self.index += 1
            // Nothing allocated: a message of a hundred thousand `{}` must not take a hundred thousand tables.
            return .object([:])
        }
        // Room for a call's members (`method`, `parameters`; `key`, `value`) without a rehash, and no more: a
        // message of many small objects takes about thirty times its size, not a hundred (a table of 8 is ~700 bytes).
        var members = [String: JSONValue](minimumCapacity: 3)
        while true {
            self.skipWhitespace()
            guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "\"") else {
                throw self.unexpected("expected a string as object key")
            }
            let keyStart = self.index
            let key = try self.parseString()
            self.skipWhitespace()
            guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: ":") else {
                throw self.unexpected("expected ':' after object key \(QuotedText.quote(key))")
            }
            self.index += 1
            self.skipWhitespace()
            // One lookup for the key: a repeated key is found as its value is stored, and named where it is.
            let value = try self.parseValue(depth: depth)
            if members.updateValue(value, forKey: key) != nil {
                self.index = keyStart
                throw self.error("duplicate key \(QuotedText.quote(key)) in an object")
            }
            self.skipWhitespace()
            guard self.index < self.bytes.count else { throw self.error("unexpected end of input inside an object") }
            switch self.bytes[self.index] {
            case UInt8(ascii: ","): self.index += 1
            case UInt8(ascii: "}"):
                self.index += 1
                return .object(members)
            default: throw self.unexpected("expected ',' or '}' after an object member")
            }
        }
    }

    mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= JSONValue.maximumDepth else { throw self.error("nesting deeper than \(JSONValue.maximumDepth)") }
        self.index += 1
        var elements: [JSONValue] = []
        self.skipWhitespace()
        if self.index < self.bytes.count && self.bytes[self.index] == UInt8(ascii: "]") {
            self.index += 1
            return .array(elements)
        }
        while true {
            self.skipWhitespace()
            elements.append(try self.parseValue(depth: depth))
            self.skipWhitespace()
            guard self.index < self.bytes.count else { throw self.error("unexpected end of input inside an array") }
            switch self.bytes[self.index] {
            case UInt8(ascii: ","): self.index += 1
            case UInt8(ascii: "]"):
                self.index += 1
                return .array(elements)
            default: throw self.unexpected("expected ',' or ']' after an array element")
            }
        }
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = self.index
        var isInteger = true
        if self.bytes[self.index] == UInt8(ascii: "-") { self.index += 1 }
        guard self.index < self.bytes.count, self.isDigit(self.bytes[self.index]) else {
            throw self.error("invalid number")
        }
        if self.bytes[self.index] == UInt8(ascii: "0") {
            self.index += 1
            if self.index < self.bytes.count && self.isDigit(self.bytes[self.index]) {
                throw self.error("invalid number: leading zero")
            }
        } else {
            self.skipDigits()
        }
        if self.index < self.bytes.count && self.bytes[self.index] == UInt8(ascii: ".") {
            isInteger = false
            self.index += 1
            guard self.index < self.bytes.count, self.isDigit(self.bytes[self.index]) else {
                throw self.error("invalid number: expected a digit after '.'")
            }
            self.skipDigits()
        }
        if self.index < self.bytes.count && (self.bytes[self.index] | 0x20) == UInt8(ascii: "e") {
            isInteger = false
            self.index += 1
            if self.index < self.bytes.count
                && (self.bytes[self.index] == UInt8(ascii: "+") || self.bytes[self.index] == UInt8(ascii: "-"))
            {
                self.index += 1
            }
            guard self.index < self.bytes.count, self.isDigit(self.bytes[self.index]) else {
                throw self.error("invalid number: expected a digit in the exponent")
            }
            self.skipDigits()
        }
        let text = String(decoding: self.bytes[start..<self.index], as: UTF8.self)
        if isInteger, let value = Int64(text) { return .int(value) }
        guard let value = Double(text), value.isFinite else {
            self.index = start
            throw self.error(
                "number out of range: \(QuotedText.quote(text)) is not a finite 64-bit floating-point number"
            )
        }
        // A number too small to be told from 0 (1e-400): not stored as 0, as one too large is not stored as ±∞.
        if value == 0, text.prefix(while: { $0 != "e" && $0 != "E" }).contains(where: { ("1"..."9").contains($0) }) {
            self.index = start
            throw self.error(
                "number out of range: \(QuotedText.quote(text)) is too small for a 64-bit floating-point number"
                    + " (it would be stored as 0)"
            )
        }
        return .double(value)
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    mutating func skipDigits() {
        while self.index < self.bytes.count && self.isDigit(self.bytes[self.index]) { self.index += 1 }
    }

    mutating func parseString() throws(JSONParseError) -> String {
        self.index += 1
        let start = self.index
        var ascii = true
        // Fast path: no escapes.
        while self.index < self.bytes.count {
            let byte = self.bytes[self.index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: self.bytes[start..<self.index])
                // ASCII is valid UTF-8 as it is.
                let text = ascii ? String(decoding: slice, as: UTF8.self) : String(validating: slice, as: UTF8.self)
                guard let text else { throw self.error("string is not valid UTF-8") }
                self.index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw self.error("control character in a string") }
            if byte >= 0x80 { ascii = false }
            self.index += 1
        }
        var out = Array(self.bytes[start..<self.index])
        while self.index < self.bytes.count {
            let byte = self.bytes[self.index]
            switch byte {
            case UInt8(ascii: "\""):
                self.index += 1
                guard let text = String(validating: out, as: UTF8.self) else {
                    throw self.error("string is not valid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                self.index += 1
                guard self.index < self.bytes.count else { break }
                let escape = self.bytes[self.index]
                self.index += 1
                switch escape {
                case UInt8(ascii: "\""): out.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "/"): out.append(UInt8(ascii: "/"))
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    let escapeStart = self.index - 2
                    var scalar = try self.parseHex4()
                    if (0xDC00..<0xE000).contains(scalar) {
                        self.index = escapeStart
                        throw self.error("unpaired UTF-16 surrogate in \\u escape")
                    }
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard self.index + 1 < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "\\"),
                            self.bytes[self.index + 1] == UInt8(ascii: "u")
                        else {
                            self.index = escapeStart
                            throw self.error("unpaired UTF-16 surrogate in \\u escape")
                        }
                        self.index += 2
                        let low = try self.parseHex4()
                        guard (0xDC00..<0xE000).contains(low) else {
                            self.index = escapeStart
                            throw self.error("unpaired UTF-16 surrogate in \\u escape")
                        }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw self.error("invalid \\u escape") }
                    out.append(contentsOf: String(Character(unicode)).utf8)
                default:
                    self.index -= 1
                    throw self.error("invalid escape in a string")
                }
            default:
                if byte < 0x20 { throw self.error("control character in a string") }
                out.append(byte)
                self.index += 1
            }
        }
        throw self.error("unterminated string")
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard self.index + 4 <= self.bytes.count else { throw self.error("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = self.bytes[self.index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw self.error("invalid hex digit in \\u escape")
            }
            value = value << 4 | UInt32(digit)
            self.index += 1
        }
        return value
    }
}

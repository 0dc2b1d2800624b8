public import SettingsAPI

/// A typed setting value. Plain data: no I/O.
///
/// Two values are equal only when they are the same value exactly (see ``==(_:_:)``), not when they merely look
/// alike: a value set in another spelling is a change, stored, told to watchers and reproduced by dump and load.
public enum SettingValue: Sendable, Hashable {
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case strings([String])

    /// The value as JSON, for the wire and for state files.
    public var json: JSONValue {
        switch self {
        case .bool(let value): .bool(value)
        case .int(let value): .int(value)
        case .double(let value): .double(value)
        case .string(let value): .string(value)
        case .strings(let values): .array(values.map { .string($0) })
        }
    }

    /// Reads a stored JSON value without a schema: the JSON type decides. `nil` for null, objects and mixed arrays.
    public init?(stored json: JSONValue) {
        switch json {
        case .bool(let value): self = .bool(value)
        case .int(let value): self = .int(value)
        case .double(let value): self = .double(value)
        case .string(let value): self = .string(value)
        case .array(let elements):
            var strings: [String] = []
            for element in elements {
                guard let string = element.stringValue else { return nil }
                strings.append(string)
            }
            self = .strings(strings)
        case .null, .object: return nil
        }
    }

    // MARK: - Equatable, Hashable

    /// Whether `lhs` and `rhs` are exactly the same value: strings with the same UTF-8 bytes (`"café"` spelled with
    /// U+00E9 is not `"café"` spelled with "e" and U+0301, though `String`'s `==` finds them equal), doubles with the
    /// same bits (`-0.0` is not `0.0`; no value is NaN, which the schema refuses), lists element by element so.
    public static func == (lhs: SettingValue, rhs: SettingValue) -> Bool {
        switch (lhs, rhs) {
        case (.bool(let left), .bool(let right)): left == right
        case (.int(let left), .int(let right)): left == right
        case (.double(let left), .double(let right)): left.bitPattern == right.bitPattern
        case (.string(let left), .string(let right)): left.utf8.elementsEqual(right.utf8)
        case (.strings(let left), .strings(let right)):
            left.count == right.count && zip(left, right).allSatisfy { $0.utf8.elementsEqual($1.utf8) }
        case (.bool, _), (.int, _), (.double, _), (.string, _), (.strings, _): false
        }
    }

    /// Hashes what ``==(_:_:)`` compares, as its JSON value hashes it (the bytes of strings, the bits of doubles):
    /// the two types compare alike.
    public func hash(into hasher: inout Hasher) {
        self.json.hash(into: &hasher)
    }

    /// The bytes the value's text takes, as `max-value-size` counts them: a string's UTF-8, a list's items each one
    /// byte more (so that a list of empty strings is bounded too); a number or a Boolean, 8.
    public var byteSize: Int {
        switch self {
        case .string(let text): text.utf8.count
        case .strings(let texts): texts.reduce(0) { $0 + $1.utf8.count + 1 }
        case .bool, .int, .double: 8
        }
    }
}

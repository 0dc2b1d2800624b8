public import SettingsAPI

/// A typed setting value. Plain data: no I/O.
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

}

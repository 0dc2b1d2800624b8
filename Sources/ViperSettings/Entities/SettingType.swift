/// The type of a setting with its constraints, as declared in a schema.
public enum SettingType: Sendable, Hashable {
    case bool
    case int(range: ClosedRange<Int64>?)
    case double(range: ClosedRange<Double>?)
    /// Text; `maxLength` in characters (from the schema), `maxSize` in bytes of UTF-8 (the daemon's
    /// `max-value-size`, see ``ModuleSchema/limitingValueSize(to:)``).
    case string(choices: [String]?, pattern: String?, maxLength: Int?, maxSize: Int? = nil)
    /// A list of texts; `maxItems` and `maxLength` (of each text, in characters) from the schema, `maxSize` (of all
    /// texts together, in bytes of UTF-8) from the daemon's `max-value-size`.
    case strings(maxItems: Int? = nil, maxLength: Int? = nil, maxSize: Int? = nil)

    /// The schema's name of the type.
    public var name: String {
        switch self {
        case .bool: "bool"
        case .int: "int"
        case .double: "double"
        case .string: "string"
        case .strings: "strings"
        }
    }

    /// The constraint in words, e.g. "1..65535" or "one of none, manual, auto"; `nil` when there is none.
    public var constraint: String? {
        switch self {
        case .bool: return "true or false"
        case .int(let range?): return "\(range.lowerBound)..\(range.upperBound)"
        case .double(let range?): return "\(range.lowerBound)..\(range.upperBound)"
        case .int(nil): return "a whole number"
        case .double(nil): return "a number"
        case .string(let choices, let pattern, let maxLength, _):
            var parts: [String] = []
            if let choices { parts.append("one of \(choices.joined(separator: ", "))") }
            if let pattern { parts.append("matching \(pattern)") }
            if let maxLength { parts.append("at most \(maxLength) characters") }
            return parts.isEmpty ? nil : parts.joined(separator: ", ")
        case .strings(let maxItems, let maxLength, _):
            var text = "a list of strings"
            if let maxItems { text += ", at most \(maxItems) items" }
            if let maxLength { text += ", each at most \(maxLength) characters" }
            return text
        }
    }
}

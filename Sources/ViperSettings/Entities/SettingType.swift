/// The type of a setting with its constraints, as declared in a schema.
public enum SettingType: Sendable, Hashable {
    case bool
    case int(range: ClosedRange<Int64>?)
    case double(range: ClosedRange<Double>?)
    /// Text; `maxLength` in characters (Unicode code points, from the schema), `maxSize` in bytes of UTF-8 (the
    /// daemon's `max-value-size`, see ``ModuleSchema/limitingValueSize(to:)``).
    case string(choices: [String]?, pattern: String?, maxLength: Int?, maxSize: Int? = nil)
    /// A list of texts; `maxItems`, `maxLength` (of each text, in code points) and `pattern` (that each text must
    /// match whole) from the schema, `maxSize` (of all texts together, in bytes of UTF-8, each item counting one
    /// byte more than its text) from the daemon's `max-value-size`.
    case strings(maxItems: Int? = nil, maxLength: Int? = nil, pattern: String? = nil, maxSize: Int? = nil)

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

}

/// The type of a setting with its constraints, as declared in a schema.
public enum SettingType: Sendable, Hashable {
    case bool
    case int(range: ClosedRange<Int64>?)
    case double(range: ClosedRange<Double>?)
    case string(choices: [String]?, pattern: String?, maxLength: Int?)
    case strings

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

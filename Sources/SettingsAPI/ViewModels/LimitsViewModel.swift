/// What values a key allows, for scripts and completion (the IDL's `Limits`): only what the schema or the daemon
/// sets; `constraint` says the same in words.
public struct LimitsViewModel: Sendable, Hashable, Codable {
    /// The smallest value of an `int` or `double`.
    public var minimum: JSONValue?
    /// The largest value of an `int` or `double`.
    public var maximum: JSONValue?
    /// The values a `string` may take.
    public var choices: [String]?
    /// The regular expression a `string` must match.
    public var pattern: String?
    /// The most characters of a `string`, or of each string of a `strings`.
    public var maxLength: Int?
    /// The most strings of a `strings`.
    public var maxItems: Int?
    /// The most bytes (UTF-8) of the value: the daemon's `max-value-size`.
    public var maxSize: Int?

    public init(
        minimum: JSONValue? = nil,
        maximum: JSONValue? = nil,
        choices: [String]? = nil,
        pattern: String? = nil,
        maxLength: Int? = nil,
        maxItems: Int? = nil,
        maxSize: Int? = nil
    ) {
        self.minimum = minimum
        self.maximum = maximum
        self.choices = choices
        self.pattern = pattern
        self.maxLength = maxLength
        self.maxItems = maxItems
        self.maxSize = maxSize
    }
}

extension LimitsViewModel {
    /// Appends the limits as compact JSON text: the bytes ``JSONValueEncoder/encodeText(_:)`` writes for them,
    /// written directly (members in the order of their keys).
    public func writeJSONText(into out: inout [UInt8]) {
        JSONObjectText<CodingKeys>.write(into: &out) { object in
            object.member(.choices, self.choices)
            object.member(.maxItems, self.maxItems)
            object.member(.maxLength, self.maxLength)
            object.member(.maxSize, self.maxSize)
            object.member(.maximum, self.maximum)
            object.member(.minimum, self.minimum)
            object.member(.pattern, self.pattern)
        }
    }
}

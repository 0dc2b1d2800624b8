/// Where a value comes from, weakest first (the IDL's `Layer`).
public enum LayerName: String, Sendable, Hashable, CaseIterable, Comparable, Codable {
    case `default`
    case recommended
    case local
    case mandatory

    public static func < (lhs: LayerName, rhs: LayerName) -> Bool {
        Self.allCases.firstIndex(of: lhs)! < Self.allCases.firstIndex(of: rhs)!
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let layer = LayerName(rawValue: text) else {
            throw JSONDecodingError(
                field: JSONDecodingError.field(decoder.codingPath),
                reason: "expected one of default, recommended, local, mandatory"
            )
        }
        self = layer
    }
}

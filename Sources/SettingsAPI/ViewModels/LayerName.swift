/// Where a value comes from, weakest first (the IDL's `Layer`).
public enum LayerName: String, Sendable, Hashable, CaseIterable, Comparable {
    case `default`
    case recommended
    case local
    case mandatory

    public static func < (lhs: LayerName, rhs: LayerName) -> Bool {
        Self.allCases.firstIndex(of: lhs)! < Self.allCases.firstIndex(of: rhs)!
    }

    init(json: JSONValue, field: String) throws(JSONDecodingError) {
        guard let text = json.stringValue, let layer = LayerName(rawValue: text) else {
            throw JSONDecodingError(field: field, reason: "expected one of default, recommended, local, mandatory")
        }
        self = layer
    }
}

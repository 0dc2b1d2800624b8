/// Why a schema was rejected: the JSON path inside the file and the reason.
public struct SchemaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file, when known.
    public var file: String?
    /// A JSON path such as `$.sections[0].items[1].default`.
    public var path: String
    public var reason: String

    public init(file: String? = nil, path: String, reason: String) {
        self.file = file
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(self.file ?? "schema"): \(self.path): \(self.reason)" }
}

extension Writers {
    /// The keys of the `writers` object.
    static let keys = ["groups", "users"]

    /// Reads the `writers` object of a schema: `users` and `groups`, each a list of names or numeric ids.
    init(field: SchemaField) throws(SchemaError) {
        let object = try field.object()
        try object.rejectUnknownKeys(allowing: Self.keys, in: "writers")
        self.init(
            users: try Self.entries(object.optionalMember("users"), kind: "user", id: "uid"),
            groups: try Self.entries(object.optionalMember("groups"), kind: "group", id: "gid")
        )
    }

    /// The entries of a `users` or `groups` list: a name must not be empty, a number must be a valid id.
    private static func entries(_ field: SchemaField?, kind: String, id: String) throws(SchemaError) -> [String] {
        guard let field else { return [] }
        var entries: [String] = []
        for element in try field.array() {
            let entry = try element.string()
            if entry.isEmpty {
                throw SchemaError(
                    path: element.path,
                    reason: "expected a \(kind) name or a numeric \(id), found an empty string"
                )
            }
            if Self.isNumeric(entry), Self.numericID(entry) == nil {
                throw SchemaError(
                    path: element.path,
                    reason: "\(entry) is not a valid \(id): a number here is a \(id), within 0..\(UInt32.max - 1)"
                )
            }
            entries.append(entry)
        }
        return entries
    }
}

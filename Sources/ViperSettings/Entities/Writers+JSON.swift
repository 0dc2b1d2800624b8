extension Writers {
    /// The keys of the `writers` object.
    static let keys = ["groups", "users"]

    /// Reads the `writers` object of a schema: `users` and `groups`, each a list of names.
    init(field: SchemaField) throws(SchemaError) {
        let object = try field.object()
        try object.rejectUnknownKeys(allowing: Self.keys, in: "writers")
        self.init(
            users: try object.optionalMember("users")?.strings() ?? [],
            groups: try object.optionalMember("groups")?.strings() ?? []
        )
    }
}

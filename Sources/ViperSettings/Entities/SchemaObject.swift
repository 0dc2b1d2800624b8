import SettingsAPI

/// A JSON object of a schema with its path: its members, and the check that it has no key but those allowed.
struct SchemaObject {
    var members: [String: JSONValue]
    var path: String

    func member(_ key: String) throws(SchemaError) -> SchemaField {
        guard let value = self.members[key] else {
            throw SchemaError(path: "\(self.path).\(key)", reason: "missing")
        }
        return SchemaField(value, parent: self.path, member: key)
    }

    /// The member `key`, `nil` when it is left out. A `null` is refused, not taken for left out: read strictly, a
    /// schema cannot drop a constraint (`"pattern": null`) without a word.
    func optionalMember(_ key: String) throws(SchemaError) -> SchemaField? {
        guard let value = self.members[key] else { return nil }
        guard value != .null else {
            throw SchemaError(path: self.path(of: key), reason: "null: leave the key out for none")
        }
        return SchemaField(value, parent: self.path, member: key)
    }

    /// The path of the member `key`: `$.sections[0].rnage`, or `$.sections[0]["a b"]` for a key that is not a
    /// plain name.
    func path(of key: String) -> String {
        let plain =
            !key.isEmpty
            && key.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
                    || $0 == "-"
            }
        return plain ? "\(self.path).\(key)" : "\(self.path)[\(QuotedText.quote(key))]"
    }

    /// Throws for the first key, in sorted order, that `allowed` does not hold: a misspelt key would otherwise drop
    /// what it meant to say without a word. `place` names the object for people: "a section".
    func rejectUnknownKeys(allowing allowed: [String], in place: String) throws(SchemaError) {
        guard let key = self.members.keys.filter({ !allowed.contains($0) }).min() else { return }
        throw self.unknownKey(key, allowed: allowed, in: place)
    }

    /// The error for `key`, which `place` does not take: "unknown key 'rnage'; an int item takes default, id, …".
    func unknownKey(_ key: String, allowed: [String], in place: String) -> SchemaError {
        SchemaError(
            path: self.path(of: key),
            reason: "unknown key \(SchemaField.quoted(key)); \(place) takes \(allowed.sorted().joined(separator: ", "))"
        )
    }

    /// The `pattern` member, checked to be a regular expression the linear-time matcher takes, and compiled for it
    /// (see ``PatternProgram/compiled(_:)``).
    func pattern() throws(SchemaError) -> String? {
        guard let field = try self.optionalMember("pattern") else { return nil }
        let pattern = try field.string()
        do {
            _ = try PatternProgram.compiled(pattern)
        } catch {
            throw SchemaError(path: field.path, reason: "not a valid regular expression: \(error)")
        }
        return pattern
    }
}

/// The entries of `writers` against the system's accounts: a number is an id, as systemd's `User=` and `chown` read
/// it; a name is looked up, and one the system does not know is worth a warning, since it lets nobody write.
extension Writers {
    /// The id an entry gives by number (`"65534"` is uid or gid 65534); `nil` for a name, and for a number that is
    /// no id (beyond 32 bits, or 4294967295, which stands for "no id" in `chown(2)`).
    static func numericID(_ entry: String) -> UInt32? {
        guard Self.isNumeric(entry), let id = UInt32(entry), id != UInt32.max else { return nil }
        return id
    }

    /// Whether an entry is all ASCII digits, so an id rather than a name.
    static func isNumeric(_ entry: String) -> Bool {
        !entry.isEmpty && entry.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// The id an entry of `users` or `groups` names: a number by itself, a name as `resolving` finds it; `nil` for a
    /// name the system does not know.
    static func id(of entry: String, resolving: (String) -> UInt32?) -> UInt32? {
        Self.isNumeric(entry) ? Self.numericID(entry) : resolving(entry)
    }

    /// The names of `users` and `groups` that `accounts` does not know (numeric ids are not looked up).
    public func unknownNames(accounts: any AccountDirectory) -> (users: [String], groups: [String]) {
        (
            self.users.filter { !Self.isNumeric($0) && accounts.userID(named: $0) == nil },
            self.groups.filter { !Self.isNumeric($0) && accounts.groupID(named: $0) == nil }
        )
    }

    /// The warning for the names of `module`'s writers the system does not know, or `nil` when it knows them all:
    /// "module 'network' names writers this system does not know: user 'alcie', group 'nogroup'; these entries
    /// let no one write until the accounts exist".
    public func unknownNamesWarning(module: String, accounts: any AccountDirectory) -> String? {
        let unknown = self.unknownNames(accounts: accounts)
        let entries =
            unknown.users.map { "user \(SchemaField.quoted($0))" }
            + unknown.groups.map { "group \(SchemaField.quoted($0))" }
        guard !entries.isEmpty else { return nil }
        return "module '\(module)' names writers this system does not know: \(entries.joined(separator: ", ")); "
            + "these entries let no one write until the accounts exist"
    }
}

import SettingsAPI

/// Dump and load: a module's local values out, and many values in at once: every value of the module is checked
/// before any is written, and then all are written in one durable change, or none.
extension SettingsInteractor {
    public func dump() async throws(SettingsFailure) -> ModuleDump {
        let (settings, revision) = try await self.resolveAll()
        var local: [String: SettingValue] = [:]
        for setting in settings {
            if let value = setting.layers[.local] { local[setting.key.path] = value }
        }
        return ModuleDump(local: local, settings: settings, revision: revision)
    }

    public func load(_ request: LoadRequest, caller: Caller) async throws(SettingsFailure) -> LoadOutcome {
        // A caller who may not write the module is one problem among the others of the file, listed with them.
        var denied: [LoadProblem] = []
        if request.mode != .preview {
            do {
                try self.authorize(caller, key: nil, method: "Load")
            } catch {
                guard case .permissionDenied(let module, let uid, let writers) = error else { throw error }
                denied = [.permissionDenied(module: module, uid: uid, writers: writers)]
            }
        }
        let (values, parsed) = self.parse(request.values)
        let problems = denied + parsed
        let module = self.schema.name
        let schema = self.schema
        let replace = request.replace
        if request.mode != .apply {
            let state = try await self.settledState()
            // The revision of a module the caller may not write does not matter: it is refused whatever it is.
            if denied.isEmpty {
                try Self.check(revision: state.revision, expected: request.ifRevision, module: module)
            }
            if denied.isEmpty, let refusal = await self.repository.writeRefusal(of: module) {
                // Known before writing (files that cannot be used, a revision that leaves no room): a load of
                // several modules is refused before any is written, and a dry run says so too.
                throw .storageFailure(module: module, reason: "\(refusal)")
            }
            let (change, locked) = Self.plan(schema: schema, values: values, replace: replace, state: state)
            // A load that verifies first is refused for them (a dry run is not a write, and is not audited).
            if request.mode == .verify, !locked.isEmpty {
                self.auditLocked(.loadRefused(problems: locked), caller: caller, method: "Load")
            }
            let after = change.map { $0.applied(to: state) } ?? state
            return self.outcome(from: state, to: after, problems: problems + locked)
        }
        if !problems.isEmpty { throw .loadRefused(problems: problems) }
        let (before, after) = try await self.update(caller: caller, method: "Load") { state throws(SettingsFailure) in
            try Self.check(revision: state.revision, expected: request.ifRevision, module: module)
            let (change, locked) = Self.plan(schema: schema, values: values, replace: replace, state: state)
            if !locked.isEmpty { throw .loadRefused(problems: locked) }
            return change
        }
        let outcome = self.outcome(from: before, to: after, problems: [])
        self.audit(outcome.changes.map { ($0.before, $0.after) }, caller: caller)
        return outcome
    }

    /// How many keys the schema does not have get the key they most likely meant: a file with more is not a few
    /// typos, and looking for each would hold the serving thread (tens of thousands of keys fit in a message).
    static let suggestedKeys = 64

    /// The values of `input` the schema has and accepts, and a problem for each other one, sorted by key.
    private func parse(_ input: [String: JSONValue]) -> (values: [String: SettingValue], problems: [LoadProblem]) {
        var values: [String: SettingValue] = [:]
        var problems: [LoadProblem] = []
        let paths = self.schema.sections.flatMap { section in section.items.map { "\(section.id).\($0.id)" } }.sorted()
        var unknown = 0
        for path in input.keys.sorted() {
            let key = "\(self.schema.name).\(path)"
            guard let json = input[path], let item = try? self.item(at: path).item else {
                unknown += 1
                problems.append(
                    .noSuchKey(
                        key: key,
                        section: self.schema.sections.contains { $0.id == path },
                        meant: unknown <= Self.suggestedKeys ? self.keyMeant(by: path, among: paths) : nil
                    )
                )
                continue
            }
            do {
                values[path] = try item.type.value(fromJSON: json)
            } catch {
                problems.append(.invalidValue(key: key, value: json.givenText, reason: error.reason))
            }
        }
        return (values, problems)
    }

    /// The key of the module (among its `paths`, `section.item`) that `path` most likely meant: the one it names but
    /// for letter case and blanks at its ends (`"Proxy.Port "`), the one it names with the module in front
    /// (`"network.proxy.port"` in `network`'s values), the one item of that name when its section is left out
    /// (`"port"`), else the closest by edit distance (`"proxy.prot"`).
    private func keyMeant(by path: String, among paths: [String]) -> String? {
        let wanted = path.trimmingSpaces.lowercased()
        let prefix = self.schema.name.lowercased() + "."
        let unprefixed = wanted.hasPrefix(prefix) ? String(wanted.dropFirst(prefix.count)) : nil
        let items = paths.filter { $0.lowercased().split(separator: ".").last.map(String.init) == wanted }
        let meant =
            paths.first { $0.lowercased() == wanted } ?? paths.first { $0.lowercased() == unprefixed }
            ?? (items.count == 1 ? items.first : nil) ?? ClosestName.closest(to: path, in: paths)
        return meant.map { "\(self.schema.name).\($0)" }
    }

    /// The module's state once the writes under way are durable (a write that decides nothing waits for them): its
    /// revision is what a `get` shows next, and never less than one a reply gave before, so a `RevisionMismatch`
    /// found here and one found while writing agree.
    private func settledState() async throws(SettingsFailure) -> ModuleState {
        do {
            return try await self.repository.update(module: self.schema.name) { _ in nil }.after
        } catch {
            throw .storageFailure(module: self.schema.name, reason: "\(error)")
        }
    }

    private static func check(revision: Int64, expected: Int64?, module: String) throws(SettingsFailure) {
        if let expected, expected != revision {
            throw .revisionMismatch(module: module, expected: expected, actual: revision)
        }
    }

    /// The local change that makes the module hold `values` (and, with `replace`, nothing else), and the keys it
    /// would change that the fleet locks. `nil` when nothing changes.
    static func plan(
        schema: ModuleSchema,
        values: [String: SettingValue],
        replace: Bool,
        state: ModuleState
    ) -> (change: LocalChange?, locked: [LoadProblem]) {
        var set: [String: SettingValue] = [:]
        var locked: [LoadProblem] = []
        for (path, value) in values.sorted(by: { $0.key < $1.key }) where state.local[path] != value {
            guard let item = schema.item(at: path) else { continue }
            let section = String(path.prefix { $0 != "." })
            let current = ResolvedSetting(module: schema.name, sectionID: section, item: item, state: state)
            if current.isLocked {
                locked.append(.keyLocked(key: current.key.description, layer: current.winner))
                continue
            }
            set[path] = value
        }
        // Only values in effect are replaced: a stored value the schema does not accept now (or of a key it no
        // longer has) is not in a dump, so a file cannot mean to remove it; it comes back if the schema does.
        var remove =
            replace ? Set(state.local.keys.filter { values[$0] == nil && Self.accepts(schema, $0, state.local) }) : []
        // Removing a locked key's local value is refused as setting it is: it comes back when the lock lifts.
        for setting in Self.locked(among: remove.sorted(), schema: schema, state: state) {
            locked.append(.keyLocked(key: setting.key.description, layer: setting.winner))
            remove.remove(setting.key.path)
        }
        guard !set.isEmpty || !remove.isEmpty else { return (nil, locked) }
        return (LocalChange(set: set, remove: remove, revision: state.revision), locked)
    }

    /// Whether `schema` has the key at `path` and accepts its value in `stored`.
    static func accepts(_ schema: ModuleSchema, _ path: String, _ stored: [String: SettingValue]) -> Bool {
        guard let value = stored[path], let item = schema.item(at: path) else { return false }
        return (try? item.type.checked(value)) != nil
    }

    /// The outcome between two states: every key of the schema whose local value differs. For a preview, `after`
    /// keeps the revision of `before`.
    private func outcome(from before: ModuleState, to after: ModuleState, problems: [LoadProblem]) -> LoadOutcome {
        var changes: [LoadOutcome.KeyChange] = []
        for section in self.schema.sections {
            for item in section.items {
                let old = ResolvedSetting(module: self.schema.name, sectionID: section.id, item: item, state: before)
                let new = ResolvedSetting(module: self.schema.name, sectionID: section.id, item: item, state: after)
                if old.layers[.local] != new.layers[.local] { changes.append(.init(before: old, after: new)) }
            }
        }
        changes.sort { $0.after.key.description < $1.after.key.description }
        return LoadOutcome(module: self.schema.name, changes: changes, problems: problems, revision: after.revision)
    }
}

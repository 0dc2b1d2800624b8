import Logging

/// A reload of the module's schema: effective values it changed become one change of the module, so that watchers
/// see them like any other.
extension SettingsInteractor {
    /// Records the effective values that differ between `previous` (the schema before the reload) and this
    /// Interactor's schema: a changed default in force, a key added or removed. Moves the revision on once when any
    /// did; logs and gives up when the change cannot be stored (the values are served anyway). Then logs each stored
    /// value the new schema does not accept, as loading the module does.
    ///
    /// Nothing is recorded when the module's newest change is a schema change of exactly these values: it was
    /// recorded already, and the copy of the schema kept for the next start was not written after it (the daemon
    /// stopped in between, or the copy could not be written), so a start compares the older copy again.
    ///
    /// - Returns: False when the change could not be stored: watchers were not told of it.
    @discardableResult
    public func adopt(previous: ModuleSchema) async -> Bool {
        let schema = self.schema
        guard previous != schema else { return true }
        var recorded = true
        do {
            let (before, after) = try await self.repository.update(module: schema.name) { state in
                let changes = Self.changes(from: previous, to: schema, state: state)
                guard !changes.isEmpty else { return nil }
                if let newest = state.history.record(at: state.revision), newest.cause == .schema,
                    newest.changes == changes
                {
                    return nil
                }
                let revision = state.revision + 1
                return LocalChange(
                    revision: revision,
                    record: ChangeRecord(revision: revision, cause: .schema, changes: changes)
                )
            }
            if after.revision > before.revision, let record = after.history.record(at: after.revision) {
                self.auditSchemaChanges(record.changes)
            }
        } catch {
            recorded = false
            self.logger.error(
                "could not record the values the reloaded schema changed",
                metadata: ["error": "\(error)"]
            )
        }
        // As at start: each stored value the reloaded schema does not accept is said, since it is now ignored (not
        // for a module no longer served: all of them are, and it was said that the module is gone).
        guard !schema.sections.isEmpty, let state = try? await self.repository.state(of: schema.name) else {
            return recorded
        }
        for broken in schema.brokenValues(in: state) {
            self.logger.warning(
                "\(schema.message(for: broken))",
                metadata: schema.metadata(for: broken).mapValues { .string($0) }
            )
        }
        return recorded
    }

    /// Audits the effective values a schema reload changed, one entry each at notice (`SOURCE=schema`, no client).
    func auditSchemaChanges(_ changes: [SettingChange]) {
        guard self.logger.logLevel <= .notice else { return }
        for change in changes {
            let key = "\(self.schema.name).\(change.path)"
            let old = change.old.map { $0.logText() }
            let new = change.new.map { $0.logText() }
            let message =
                switch (old, new) {
                case (let old?, let new?): "\(key) changed from \(old) to \(new) by a schema change"
                case (nil, let new?): "\(key) added by a schema change, with \(new)"
                case (let old?, nil): "\(key) removed by a schema change (it was \(old))"
                case (nil, nil): "\(key) changed with its schema"
                }
            var metadata: Logger.Metadata = ["key": "\(key)", "source": "schema"]
            if let old { metadata["old_value"] = "\(old)" }
            if let new { metadata["new_value"] = "\(new)" }
            if let layer = change.layer { metadata["layer"] = "\(layer.rawValue)" }
            if let layer = change.oldLayer { metadata["old_layer"] = "\(layer.rawValue)" }
            self.logger.notice("\(message)", metadata: metadata)
        }
    }

    /// Makes the module's watchers start over from its current values, when the schema it was served with before is
    /// not known (the copy kept of it cannot be read): what a change of schema changed cannot be told, and guessing
    /// (every key added) would tell what did not happen. The revision moves on once without a change record, so a
    /// watcher resuming from before gets a resync, then the current values. Logs and gives up when the change cannot
    /// be stored.
    ///
    /// - Returns: False when the fresh start could not be stored.
    @discardableResult
    public func restartHistory() async -> Bool {
        do {
            _ = try await self.repository.update(module: self.schema.name) { state in
                LocalChange(revision: state.revision + 1)
            }
            return true
        } catch {
            self.logger.error(
                "could not record that the schema served before is unknown",
                metadata: ["error": "\(error)"]
            )
            return false
        }
    }

    /// The effective values that differ between resolving `state` with `old` and with `new`, by path.
    static func changes(from old: ModuleSchema, to new: ModuleSchema, state: ModuleState) -> [SettingChange] {
        func resolved(_ schema: ModuleSchema) -> [String: ResolvedSetting] {
            var result: [String: ResolvedSetting] = [:]
            for section in schema.sections {
                for item in section.items {
                    let setting = ResolvedSetting(module: schema.name, sectionID: section.id, item: item, state: state)
                    result[setting.key.path] = setting
                }
            }
            return result
        }
        let before = resolved(old)
        let after = resolved(new)
        return Set(before.keys).union(after.keys).sorted().compactMap { path in
            let old = before[path]
            let new = after[path]
            guard old?.value != new?.value else { return nil }
            return SettingChange(
                path: path,
                old: old?.value,
                oldLayer: old?.winner,
                new: new?.value,
                layer: new?.winner
            )
        }
    }
}

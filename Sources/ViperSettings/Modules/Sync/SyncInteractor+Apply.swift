import Logging
import SettingsAPI
import Synchronization

/// Applying what a remote source says to the remote layers of every module: each value is checked against its
/// schema and rejected alone (the last known good value of that key stays), effective changes bump the module's
/// revision and are audited with `SOURCE=remote`, and the source's revision is stored with the layers it gave.
extension SyncInteractor {
    /// Applies a snapshot to every module served; modules the snapshot does not name lose their remote values.
    @discardableResult
    public func apply(_ snapshot: RemoteSnapshot) async -> RemoteApplyOutcome {
        await self.applying.run { await self.applyNow(snapshot) }
    }

    /// Applies the last snapshot again, under the schemas served now (after a reload): a value the old schemas
    /// rejected and the new ones accept comes into force, a module added gets its remote values, a value they
    /// reject is listed. Before the source's first answer since start, only the status is worked out again (the
    /// values cached on disk stay as they are).
    public func reapply() async {
        await self.applying.run {
            guard let last = self.lastApplied.withLock({ $0?.snapshot }) else {
                await self.refresh()
                return
            }
            _ = await self.applyNow(last)
        }
    }

    private func applyNow(_ snapshot: RemoteSnapshot) async -> RemoteApplyOutcome {
        var notStored: [RemoteRejection] = []
        for schema in self.schemas() {
            let raw = snapshot.modules[schema.name] ?? RemoteModuleValues()
            do {
                try await self.apply(raw, to: schema, revision: snapshot.revision)
            } catch {
                self.logger.error(
                    "could not store remote values",
                    metadata: ["module": "\(schema.name)", "error": "\(error)"]
                )
                notStored.append(RemoteRejection(module: schema.name, key: schema.name, reason: "not stored: \(error)"))
            }
        }
        self.lastApplied.withLock { $0 = (snapshot, notStored) }
        // Logged when first rejected, not again with every document or event that still carries it (a poll every
        // few seconds, an etcd event per key), and at most `rejectionLogLimit` lines at once: the remote decides
        // how many there are. `settingsctl status` lists them all.
        let before = Set(self.recorder.snapshot.rejected)
        await self.refresh()
        let new = self.recorder.snapshot.rejected.filter { !before.contains($0) }
        for entry in new.prefix(Self.rejectionLogLimit) {
            self.logger.warning("remote value rejected: \(entry)", metadata: ["revision": "\(snapshot.revision)"])
        }
        if new.count > Self.rejectionLogLimit {
            self.logger.warning(
                "\(new.count - Self.rejectionLogLimit) more remote values rejected (settingsctl status lists them)",
                metadata: ["revision": "\(snapshot.revision)"]
            )
        }
        return notStored.isEmpty
            ? .stored
            : .notStored(reason: notStored.map { "module \($0.module): \($0.reason)" }.joined(separator: "; "))
    }

    /// The most rejected remote values logged one by one for one document.
    static let rejectionLogLimit = 20

    /// Stores `raw` as the remote layers of `schema`'s module, with the source's `remoteRevision` (`nil`: the one
    /// stored stays); returns the module's state before and after.
    @discardableResult
    func apply(
        _ raw: RemoteModuleValues,
        to schema: ModuleSchema,
        revision remoteRevision: String?
    ) async throws -> (before: ModuleState, after: ModuleState) {
        let checked = Self.checked(raw, against: schema)
        let recommended = checked.recommended
        let mandatory = checked.mandatory
        let (before, after) = try await self.repository.updateRemote(module: schema.name) { state in
            func merged(_ incoming: [String: SettingValue?], previous: [String: SettingValue]) -> [String: SettingValue]
            {
                var result: [String: SettingValue] = [:]
                for (path, value) in incoming {
                    if let value { result[path] = value } else if let kept = previous[path] { result[path] = kept }
                }
                return result
            }
            let nextRecommended = merged(recommended, previous: state.recommended)
            let nextMandatory = merged(mandatory, previous: state.mandatory)
            let layersChanged = nextRecommended != state.recommended || nextMandatory != state.mandatory
            // A new source revision is stored with the layers it confirms, so that a restart names it; a module
            // without remote values is rewritten only when it loses them.
            let hasValues = !nextRecommended.isEmpty || !nextMandatory.isEmpty
            guard layersChanged || (hasValues && state.remoteRevision != remoteRevision) else { return nil }
            var next = state
            next.recommended = nextRecommended
            next.mandatory = nextMandatory
            let changes = SettingChange.changes(in: schema, from: state, to: next)
            // Any change of the remote layers moves the revision (a lock that keeps the value included); a new
            // source revision alone does not.
            let revision = state.revision + (layersChanged ? 1 : 0)
            return RemoteChange(
                recommended: nextRecommended,
                mandatory: nextMandatory,
                revision: revision,
                remoteRevision: remoteRevision,
                record: ChangeRecord(
                    revision: revision,
                    cause: .remote(revision: remoteRevision ?? state.remoteRevision),
                    changes: changes
                )
            )
        }
        self.audit(schema: schema, before: before, after: after)
        return (before, after)
    }

    private static func resolved(_ schema: ModuleSchema, _ state: ModuleState) -> [ResolvedSetting] {
        schema.sections.flatMap { section in
            section.items.map { ResolvedSetting(module: schema.name, sectionID: section.id, item: $0, state: state) }
        }
    }

    private func audit(schema: ModuleSchema, before: ModuleState, after: ModuleState) {
        guard before != after else { return }
        for (old, new) in zip(Self.resolved(schema, before), Self.resolved(schema, after)) where old != new {
            if old.value != new.value {
                self.changes.withLock {
                    $0.sequence += 1
                    $0.keys.append(($0.sequence, new.key.description))
                    if $0.keys.count > 10_000 { $0.keys.removeFirst($0.keys.count - 10_000) }
                }
            }
            // An audit entry is a change users see: the effective value, or whether the fleet locks it. A layer
            // that changed under a value that still wins (a recommended value below a local one) is none.
            guard old.value != new.value || old.isLocked != new.isLocked else { continue }
            self.logger.notice(
                "\(new.key) changed from \(old.value.logText()) to \(new.value.logText())",
                metadata: [
                    "module": "\(schema.name)",
                    "key": "\(new.key)",
                    "old_value": "\(old.value.logText())",
                    "new_value": "\(new.value.logText())",
                    "layer": "\(new.winner.rawValue)",
                    "locked": "\(new.isLocked)",
                    "source": "remote",
                ]
            )
        }
    }
}

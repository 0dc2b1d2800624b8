import Logging

/// Remote sync turned off.
extension SyncInteractor {
    /// With no remote source configured (remote sync off), drops the remote values that a source configured before
    /// left cached in the state files: the fleet's recommendations and locks end with its sync, as an admin who turns
    /// it off expects, rather than stay in force with no source to lift them. Each module that held some changes
    /// revision (its watchers and the applier are told), and the changes are audited with `SOURCE=remote`. A module
    /// that cannot be written keeps them, and says why in the log; the next start tries again.
    ///
    /// - Parameter serialized: Whether to wait for a snapshot being applied first (at start, and normally); false when
    ///   called from within a write, which may be one of such an apply's (the state files read again after the state
    ///   directory's lock was taken late, see ``SettingsRepository``): with no source, nothing else applies one.
    public func dropCachedValues(serialized: Bool = true) async {
        if serialized {
            await self.applying.run { await self.dropEveryModule() }
        } else {
            await self.dropEveryModule()
        }
    }

    private func dropEveryModule() async {
        for schema in self.schemas() {
            // Nothing to drop: not even tried (a module whose files refuse writes would say it could not).
            if let state = try? await self.repository.state(of: schema.name), state.recommended.isEmpty,
                state.mandatory.isEmpty
            {
                continue
            }
            do {
                let (before, after) = try await self.apply(RemoteModuleValues(), to: schema, revision: nil)
                guard after.revision != before.revision else { continue }
                self.logger.notice(
                    """
                    Remote sync is off: dropped the remote values of module \(schema.name) that its source gave \
                    (revision \(before.remoteRevision ?? "unknown")); its locks are lifted
                    """,
                    metadata: ["module": "\(schema.name)"]
                )
            } catch {
                self.logger.error(
                    "Remote sync is off, but the remote values of module \(schema.name) could not be dropped: \(error)",
                    metadata: ["module": "\(schema.name)"]
                )
            }
        }
    }
}

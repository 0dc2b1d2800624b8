import Logging
import SettingsAPI

/// Applying the targets a change touched: one pass at a time, one target at a time, each recorded as it ends.
extension ApplyInteractor {
    /// Renders `target` from the values held and applies it (as ``FileApplier/apply(_:rendered:dryRun:permit:)``
    /// does), as the apply in flight: a reload of the targets that removes it withdraws its permit and cancels it. A
    /// render too large to finish fails the target, not retried: the same values render the same way, and a change
    /// applies the target again.
    func renderAndApply(
        _ target: ApplyTarget,
        revisions: [String: Int64],
        permit: ApplyPermit
    ) async -> ApplyOutcome {
        let rendered: String
        do {
            rendered = try self.render(target, revisions: revisions)
        } catch {
            return ApplyOutcome(result: .failed, error: error.description)
        }
        let applier = self.applier
        let task = Task { await applier.apply(target, rendered: rendered, permit: permit) }
        self.inFlight = (target, permit, task, self.clock.now())
        defer { self.inFlight = nil }
        // A stop (SIGTERM cancels the caller) stops the command as before.
        return await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
    }

    func markDirty(keys: some Sequence<String>) {
        for key in keys {
            for target in self.targets where target.reads(key: key) { self.dirty.insert(target.name) }
        }
    }

    /// Applies the targets marked dirty, unless a record is half received or the values are not known yet.
    func applyDirtyWhenSettled() async {
        if self.ready, !Self.insideRecord(self.state.cursor) { await self.applyDirty() }
    }

    /// Marks the target named `name` to be applied again.
    func markDirty(target name: String) {
        self.dirty.insert(name)
    }

    /// Whether a target named `name` is loaded.
    func hasTarget(_ name: String) -> Bool {
        self.targets.contains { $0.name == name }
    }

    /// Applies every target marked dirty, pass after pass, until none is left; one pass at a time (a call made
    /// meanwhile leaves its targets for the running pass). The cursor of the last change applied moves on after each
    /// pass that finished.
    func applyDirty() async {
        guard !self.applying else { return }
        self.applying = true
        // At a stop (SIGTERM: the task is cancelled), no further target is started; the one whose check or reload
        // runs has it stopped. The next start applies every target anyway.
        while !self.dirty.isEmpty && !Self.insideRecord(self.state.cursor) && !Task.isCancelled {
            let names = self.dirty
            self.dirty = []
            // Every target reflects at least the changes up to here once this pass ends.
            let cursor = self.state.cursor
            var finished = true
            // The targets rendered, with the revisions they were rendered with.
            var applied: [(target: ApplyTarget, revisions: [String: Int64])] = []
            // By name, each as loaded when its turn comes: a reload of the targets meanwhile (SIGHUP) may have
            // removed it (it is no longer applied) or changed it.
            self.passRemaining = self.targets.map(\.name).filter { names.contains($0) }
            defer { self.passRemaining = [] }
            for name in self.targets.map(\.name) where names.contains(name) {
                self.passRemaining.removeAll { $0 == name }
                guard !Task.isCancelled else { break }
                guard let target = self.targets.first(where: { $0.name == name }) else { continue }
                let revisions = self.renderRevisions(of: target)
                let outcome: ApplyOutcome
                let permit = ApplyPermit()
                let unserved = self.unserved(target)
                if let unserved {
                    outcome = ApplyOutcome(result: .failed, error: unserved.description)
                } else {
                    outcome = await self.renderAndApply(target, revisions: revisions, permit: permit)
                }
                if permit.isWithdrawn {
                    // Removed meanwhile (logged then): nothing was written, and it is no longer applied.
                    self.retrying.remove(target.name)
                    continue
                }
                if outcome.interrupted {
                    finished = false
                    self.logger.notice(
                        "\(target.name): \(outcome.error ?? "interrupted"); its last outcome is kept",
                        metadata: ["target": "\(target.name)", "destination": "\(target.destination)"]
                    )
                    self.dirty.insert(target.name)
                    continue
                }
                if unserved == nil { applied.append((target, revisions)) }
                let model = self.viewModel(target, outcome, revisions: revisions, at: self.clock.now(), diff: false)
                self.log(target, outcome, model)
                self.scheduleRetry(of: target, after: outcome)
                self.recordWritten(target, outcome)
                // An unchanged file keeps the record of when it was written, unless that record is a failure: the
                // file holds what the values render now, so the failure is over.
                if outcome.result != .unchanged || self.state.outcomes[target.name] == nil
                    || self.lastApplyFailed(target.name)
                {
                    self.state.outcomes[target.name] = model
                }
            }
            self.settleGuesses(applied)
            self.forgetRemovedFiles()
            do {
                try self.store.save(self.state)
            } catch {
                self.logger.error("\(error)")
            }
            if finished && !Task.isCancelled { self.appliedCursor = cursor }
        }
        // Nothing left to apply: every target holds what the changes up to the last one received render.
        if self.dirty.isEmpty && !Task.isCancelled { self.appliedCursor = self.state.cursor }
        self.applying = false
        self.tellStatus()
    }
}

import Logging
public import SettingsAPI

/// What applying a target did, for people: its ViewModel (`settingsctl apply`) and its journal entry.
extension ApplyInteractor {
    func viewModel(
        _ target: ApplyTarget,
        _ outcome: ApplyOutcome,
        revisions: [String: Int64],
        at: Double?,
        diff: Bool
    ) -> TargetOutcomeViewModel {
        func command(_ result: CommandResult?) -> CommandResultViewModel? {
            result.map { CommandResultViewModel(status: $0.status, stderr: $0.stderr, signal: $0.signal) }
        }
        return TargetOutcomeViewModel(
            target: target.name,
            destination: target.destination,
            result: outcome.result.rawValue,
            keys: self.renderer.keys(of: target, in: self.state.values),
            revisions: revisions,
            check: command(outcome.check),
            reload: command(outcome.reload),
            rollbackReload: command(outcome.rollbackReload),
            error: outcome.error,
            diff: diff ? outcome.diff : nil,
            at: at,
            reloadSkipped: outcome.reloadSkipped,
            attributes: diff && !outcome.attributes.isEmpty ? outcome.attributes : nil
        )
    }

    func log(_ target: ApplyTarget, _ outcome: ApplyOutcome, _ model: TargetOutcomeViewModel) {
        var metadata: Logger.Metadata = [
            "target": "\(target.name)",
            "destination": "\(target.destination)",
            "result": "\(outcome.result.rawValue)",
            "keys": "\(model.keys.joined(separator: ","))",
            "revisions":
                "\(model.revisions.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ","))",
        ]
        if let check = outcome.check {
            metadata["check_status"] = "\(check.status)"
            if !check.stderr.isEmpty { metadata["check_stderr"] = "\(check.stderr)" }
        }
        if let reload = outcome.reload {
            metadata["reload_status"] = "\(reload.status)"
            if !reload.stderr.isEmpty { metadata["reload_stderr"] = "\(reload.stderr)" }
        }
        if let again = outcome.rollbackReload { metadata["rollback_reload_status"] = "\(again.status)" }
        if let skipped = outcome.reloadSkipped { metadata["reload_skipped"] = "\(skipped)" }
        switch outcome.result {
        case .unchanged:
            self.logger.info("\(target.destination) is up to date (target \(target.name))", metadata: metadata)
        case .written, .wouldWrite:
            let skipped = outcome.reloadSkipped == nil ? "" : "; its reload was not run (--root)"
            self.logger.notice("wrote \(target.destination) (target \(target.name))\(skipped)", metadata: metadata)
        case .checkFailed, .reloadFailed, .failed:
            self.logger.error(
                "\(target.destination) (target \(target.name)): \(outcome.error ?? outcome.result.rawValue)",
                metadata: metadata
            )
        }
    }

    /// Every target's status.
    public func status() -> ApplyStatusViewModel {
        ApplyStatusViewModel(
            targets: self.targets.map { target in
                TargetStatusViewModel(
                    target: target.name,
                    description: target.description,
                    reads: target.reads,
                    destination: target.destination,
                    last: self.state.outcomes[target.name],
                    retry: self.retries[target.name].map { TargetRetryViewModel(attempt: $0.attempt, at: $0.at) }
                )
            },
            problems: self.problemViewModels,
            warnings: self.warningViewModels,
            connected: self.connected,
            cursor: self.appliedCursor,
            applying: self.inFlight.map { now in
                let waiting = Set(self.passRemaining).union(self.dirty).subtracting([now.target.name])
                return ApplyingNowViewModel(
                    target: now.target.name,
                    since: now.since,
                    waiting: self.targets.map(\.name).filter { waiting.contains($0) }
                )
            }
        )
    }

    /// The target files refused.
    var problemViewModels: [TargetProblemViewModel] {
        self.problems.map { problem in
            if case .badTarget(let file, let reason) = problem {
                return TargetProblemViewModel(file: file, reason: reason)
            }
            return TargetProblemViewModel(file: "", reason: problem.description)
        }
    }

    /// What to fix in target files that were loaded all the same, and the files the applier wrote that no target
    /// writes any more.
    var warningViewModels: [TargetProblemViewModel] {
        self.unknownReads.map { TargetProblemViewModel(file: $0.target.source, reason: $0.reason) }
            + self.leftBehindViewModels
    }

    /// Once the daemon's values are known: what to fix in each target that is applied all the same
    /// (``TargetWarnings``).
    var unknownReads: [(target: ApplyTarget, reason: String)] {
        guard self.ready else { return [] }
        return self.targets.flatMap { target in
            TargetWarnings.reasons(for: target, values: self.state.values).map { (target, $0) }
        }
    }

    /// Logs what to fix in the targets loaded (at the first values, and when the targets are read again).
    func logWarnings() {
        for (target, reason) in self.unknownReads {
            self.logger.warning("\(target.source): \(reason)", metadata: ["target": "\(target.name)"])
        }
    }
}

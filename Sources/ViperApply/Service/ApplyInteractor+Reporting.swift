import Logging
import SettingsAPI

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
}

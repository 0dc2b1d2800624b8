import Logging
public import SettingsAPI

/// Rendering a target from the values held, and a dry run of every target (`settingsctl apply --dry-run`).
extension ApplyInteractor {
    /// What applying every target now would do, checks included; nothing is written. Refused (``ApplyError/notReady(_:)``)
    /// unless the values are the daemon's current ones: not before they arrived, and not while the daemon is away,
    /// whatever values were received before (they may be stale).
    public func dryRun() async throws(ApplyError) -> ApplyDryRunViewModel {
        guard self.upToDate else {
            throw .notReady(
                self.connected
                    ? "it has not received the settings daemon's current values yet; nothing was rendered"
                    : "it is not connected to the settings daemon (it keeps trying to reconnect), so the values it"
                        + " holds may be stale; nothing was rendered"
            )
        }
        // Each target is rendered now, from the values held, as an apply would render it (one that reads a module
        // the daemon does not serve is not rendered: it fails); then their checks run at the same time, each for at
        // most its time limit, so that a few slow checks do not keep the caller waiting for their sum.
        let targets = self.targets
        var revisions: [[String: Int64]] = []
        var rendered: [Result<String, ApplyError>] = []
        for target in targets {
            let revision = self.renderRevisions(of: target)
            revisions.append(revision)
            rendered.append(Result { () throws(ApplyError) -> String in try self.render(target, revisions: revision) })
        }
        let applier = self.applier
        let outcomes = await withTaskGroup(of: (Int, ApplyOutcome).self) { group in
            for (index, target) in targets.enumerated() {
                switch rendered[index] {
                case .success(let text):
                    group.addTask { (index, await applier.apply(target, rendered: text, dryRun: true)) }
                case .failure(let error):
                    group.addTask { (index, ApplyOutcome(result: .failed, error: error.description)) }
                }
            }
            var outcomes: [Int: ApplyOutcome] = [:]
            for await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes
        }
        return ApplyDryRunViewModel(
            targets: targets.indices.compactMap { index in
                outcomes[index].map {
                    self.viewModel(targets[index], $0, revisions: revisions[index], at: nil, diff: true)
                }
            },
            problems: self.problemViewModels,
            warnings: self.warningViewModels
        )
    }

    /// `target` rendered from the values held, as an apply and a dry run render it: not at all when it reads a
    /// module the daemon does not serve (``unserved(_:)``).
    func render(_ target: ApplyTarget, revisions: [String: Int64]) throws(ApplyError) -> String {
        if let reason = self.unserved(target) { throw reason }
        return try self.renderer.render(target, values: self.state.values, revisions: revisions)
    }

    /// Why `target` is not rendered: it reads a module the daemon does not serve (a schema removed or rejected, a
    /// typo), and rendering would blank every value of it in a system file; the file keeps what it holds until the
    /// module is served. `nil` when every module it reads is served.
    func unserved(_ target: ApplyTarget) -> ApplyError? {
        let served = Set(self.state.values.keys.map(ApplyTarget.module(of:)))
        let missing = target.modules.subtracting(served).sorted()
        guard !missing.isEmpty else { return nil }
        return .notServed(modules: missing)
    }
}

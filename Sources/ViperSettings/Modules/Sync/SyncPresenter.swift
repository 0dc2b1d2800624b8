import SettingsAPI

/// The centre of the Sync module: turns `status` and `sync` requests into Interactor calls, and the results into
/// ViewModels (the state travels as its name on the wire).
public struct SyncPresenter: SyncPresenterProtocol {
    private let interactor: any SyncInteractorProtocol
    private let version: String
    private let now: @Sendable () -> Double

    /// - Parameters:
    ///   - interactor: The module's use cases.
    ///   - version: The daemon's version.
    ///   - now: The wall clock, seconds since the Unix epoch.
    public init(interactor: any SyncInteractorProtocol, version: String, now: @escaping @Sendable () -> Double) {
        self.interactor = interactor
        self.version = version
        self.now = now
    }

    public func handle(_ event: SyncViewEvent, caller: Caller, view: any SyncViewProtocol) async {
        switch event {
        case .status:
            let served = self.interactor.served()
            let health = await self.interactor.health()
            await view.display(
                .status(
                    StatusViewModel(
                        version: self.version,
                        modules: served.modules,
                        keys: served.keys,
                        sync: Self.viewModel(self.interactor.status()),
                        now: self.now(),
                        problems: Self.problems(health)
                    )
                )
            )
        case .sync:
            do {
                let outcome = try await self.interactor.sync(caller: caller)
                await view.display(
                    .sync(
                        SyncResultViewModel(
                            sync: Self.viewModel(outcome.status),
                            changedKeys: outcome.changed,
                            now: self.now(),
                            earlier: outcome.earlier ? true : nil
                        )
                    )
                )
            } catch {
                await view.display(failure: SettingsFormatter.error(error))
            }
        }
    }

    /// What is wrong with the daemon, in words (`nil` when nothing is): each problem once, the files named.
    static func problems(_ health: DaemonHealth) -> [String]? {
        var problems = health.unusableStateFiles.map {
            "state files unusable: \($0); the modules concerned refuse writes"
        }
        problems += health.failingWrites.map { "writes failing: \($0); each write tries again" }
        problems += health.rejectedSchemaFiles.map { "schema file rejected: \($0)" }
        if let error = health.configurationReloadError {
            problems.append("configuration not reloaded, the previous configuration is in force: \(error)")
        }
        switch (health.schemasNotReloaded, health.modulesDirectoryWithoutSchemas) {
        case (true, let directory?):
            problems.append(
                "schemas not reloaded: the modules directory \(directory) holds no schema files (*.json), the previous"
                    + " schemas are in force"
            )
        case (true, nil):
            problems.append(
                "schemas not reloaded: the last reload could not read the modules directory, the previous schemas are"
                    + " in force (the log says why)"
            )
        case (false, let directory?):
            problems.append("no module served: the modules directory \(directory) holds no schema files (*.json)")
        case (false, nil):
            break
        }
        return problems.isEmpty ? nil : problems
    }

    /// The ViewModel of a sync status.
    static func viewModel(_ status: SyncStatus) -> SyncStatusViewModel {
        SyncStatusViewModel(
            state: status.state.rawValue,
            source: status.source,
            lastSuccess: status.lastSuccess,
            lastAttempt: status.lastAttempt,
            revision: status.revision,
            lastError: status.lastError,
            nextAttempt: status.nextAttempt,
            rejected: Array(status.rejected.prefix(SyncStatusViewModel.rejectedShown)),
            rejectedCount: status.rejected.count,
            recommendedInForce: status.recommendedInForce,
            mandatoryInForce: status.mandatoryInForce
        )
    }
}

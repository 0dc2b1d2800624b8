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
            await view.display(
                .status(
                    StatusViewModel(
                        version: self.version,
                        modules: served.modules,
                        keys: served.keys,
                        sync: Self.viewModel(self.interactor.status()),
                        now: self.now()
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
                            now: self.now()
                        )
                    )
                )
            } catch {
                await view.display(failure: SettingsFormatter.error(error))
            }
        }
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

import SettingsAPI
import Synchronization
import ViperSettings

/// The View of one Varlink call: keeps what the Presenter displays so the interface can send it as the reply.
final class VarlinkSettingsView: SettingsViewProtocol, SyncViewProtocol {
    private let state = Mutex<Result<any Encodable & Sendable, SettingsErrorViewModel>?>(nil)

    /// What was displayed, if anything: a ViewModel of the Settings or the Sync module, or a declared error.
    var outcome: Result<any Encodable & Sendable, SettingsErrorViewModel>? { self.state.withLock { $0 } }

    func display(_ viewModel: SettingsViewModel) async {
        self.state.withLock { $0 = .success(viewModel) }
    }

    func display(_ viewModel: SyncViewModel) async {
        self.state.withLock { $0 = .success(viewModel) }
    }

    func display(failure: SettingsErrorViewModel) async {
        self.state.withLock { $0 = .failure(failure) }
    }
}

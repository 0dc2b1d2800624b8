import SettingsAPI
import Synchronization
import ViperSettings

/// The View of one Varlink call: keeps what the Presenter displays so the interface can send it as the reply.
final class VarlinkSettingsView: SettingsViewProtocol {
    private let state = Mutex<Result<SettingsViewModel, SettingsErrorViewModel>?>(nil)

    /// What was displayed, if anything.
    var outcome: Result<SettingsViewModel, SettingsErrorViewModel>? { self.state.withLock { $0 } }

    func display(_ viewModel: SettingsViewModel) async {
        self.state.withLock { $0 = .success(viewModel) }
    }

    func display(failure: SettingsErrorViewModel) async {
        self.state.withLock { $0 = .failure(failure) }
    }
}

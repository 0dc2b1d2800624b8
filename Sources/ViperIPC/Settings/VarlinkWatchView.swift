import SettingsAPI
import Synchronization
import ViperSettings

/// The View of one `Watch` call: sends each event as a reply with `continues`, and keeps a failure for the interface
/// to send as the error that ends the call.
final class VarlinkWatchView: WatchViewProtocol {
    private let replies: any VarlinkReplySink
    private let state = Mutex<SettingsErrorViewModel?>(nil)

    init(replies: any VarlinkReplySink) {
        self.replies = replies
    }

    /// The failure displayed, if any.
    var failure: SettingsErrorViewModel? { self.state.withLock { $0 } }

    func display(_ event: WatchEventViewModel) async throws {
        try await self.replies.reply(try JSONValueEncoder().encode(event), continues: true)
    }

    func display(failure: SettingsErrorViewModel) async {
        self.state.withLock { $0 = failure }
    }
}

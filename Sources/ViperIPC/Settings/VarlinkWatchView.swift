import SettingsAPI
import Synchronization
import ViperSettings

/// The View of one `Watch` call: sends each event as a reply with `continues`, and keeps a failure for the interface
/// to send as the error that ends the call.
final class VarlinkWatchView: WatchViewProtocol {
    private let replies: any VarlinkReplySink
    private let cache: WatchReplyCache
    private let state = Mutex<SettingsErrorViewModel?>(nil)

    init(replies: any VarlinkReplySink, cache: WatchReplyCache) {
        self.replies = replies
        self.cache = cache
    }

    /// The failure displayed, if any.
    var failure: SettingsErrorViewModel? { self.state.withLock { $0 } }

    func display(_ event: WatchEventViewModel) async throws {
        // The server's own sink takes the frame encoded once for every watcher; any other sends the parameters.
        if let connection = self.replies as? VarlinkCallReplies, connection.call.more {
            try await connection.replyContinuing(frame: try self.cache.frame(for: event))
        } else {
            try await self.replies.reply(try JSONValueEncoder().encode(event), continues: true)
        }
    }

    func display(failure: SettingsErrorViewModel) async {
        self.state.withLock { $0 = failure }
    }
}

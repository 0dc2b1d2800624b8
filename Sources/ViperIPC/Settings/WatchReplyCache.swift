import NIOCore
import SettingsAPI
import Synchronization

/// The encoded `Watch` replies of the latest events, shared by every watcher: a change that reaches a thousand
/// watchers of one scope is one ViewModel, encoded once, and the same bytes (a copy-on-write `ByteBuffer`) are
/// written to each connection.
final class WatchReplyCache: Sendable {
    private let frames = Mutex<[WatchEventViewModel: ByteBuffer]>([:])
    /// Distinct events kept; past it the cache starts over (the events of one change are a handful per scope).
    let capacity: Int

    init(capacity: Int = 256) {
        self.capacity = capacity
    }

    /// The reply to a `more` call carrying `event`, with `continues`, as it goes on the wire (NUL included).
    func frame(for event: WatchEventViewModel) throws -> ByteBuffer {
        if let frame = self.frames.withLock({ $0[event] }) { return frame }
        let frame = VarlinkReply(parameters: try JSONValueEncoder().encode(event), continues: true).encoded()
        self.frames.withLock { frames in
            if frames.count >= self.capacity { frames.removeAll(keepingCapacity: true) }
            frames[event] = frame
        }
        return frame
    }
}

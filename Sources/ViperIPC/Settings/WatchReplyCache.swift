import NIOCore
import SettingsAPI
import Synchronization

/// The encoded `Watch` replies of the latest events, shared by every watcher: a change that reaches a thousand
/// watchers of one scope is one ViewModel, encoded once, and the same bytes (a copy-on-write `ByteBuffer`) are
/// written to each connection.
///
/// Bounded by count and by bytes: past `capacity` events, or when the frames kept would exceed `byteBudget`, it
/// starts over (keeping the newest, whatever its size, for the watchers still to be told of it). The events of one
/// change are a handful per scope, so a fan-out still encodes each once; what stays after the watchers are gone is
/// at most about `byteBudget` of frames and as much of their ViewModels, not the last `capacity` changes of 64 KiB
/// values.
final class WatchReplyCache: Sendable {
    private struct Frames {
        var byEvent: [WatchEventViewModel: ByteBuffer] = [:]
        var bytes = 0
    }

    private let frames = Mutex(Frames())
    /// Distinct events kept.
    let capacity: Int
    /// The bytes of frames kept.
    let byteBudget: Int

    init(capacity: Int = 256, byteBudget: Int = 1 << 20) {
        self.capacity = capacity
        self.byteBudget = byteBudget
    }

    /// The reply to a `more` call carrying `event`, with `continues`, as it goes on the wire (NUL included).
    func frame(for event: WatchEventViewModel) throws -> ByteBuffer {
        if let frame = self.frames.withLock({ $0.byEvent[event] }) { return frame }
        let frame = VarlinkReply(parameters: try JSONValueEncoder().encode(event), continues: true).encoded()
        self.frames.withLock { frames in
            if frames.byEvent.count >= self.capacity || frames.bytes + frame.readableBytes > self.byteBudget {
                frames = Frames()
            }
            frames.byEvent[event] = frame
            frames.bytes += frame.readableBytes
        }
        return frame
    }

    /// How many events and frame bytes are kept.
    var kept: (events: Int, bytes: Int) {
        self.frames.withLock { ($0.byEvent.count, $0.bytes) }
    }
}

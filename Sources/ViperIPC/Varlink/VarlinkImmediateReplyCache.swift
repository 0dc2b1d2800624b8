import NIOCore
import Synchronization

/// The replies a server made on the spot (``VarlinkInterface/replyNow(to:)``), by the exact bytes of their calls,
/// shared by every connection: a call whose bytes were answered before gets the same reply frame again, without
/// being parsed or handled, while its interface's ``VarlinkInterface/replyNowGeneration`` is unchanged.
///
/// Only replies of interfaces with a generation are kept, under the generation read before the reply was made; a
/// reply made from a newer state than that is merely made again. Bounded: past ``limit`` calls it starts over.
final class VarlinkImmediateReplyCache: Sendable {
    private struct Entry: Sendable {
        var interface: any VarlinkInterface
        var generation: UInt64
        var reply: ByteBuffer
    }

    private let entries = Mutex<[ByteBuffer: Entry]>([:])
    /// The most calls kept.
    let limit: Int

    /// Creates an empty cache of at most `limit` calls.
    init(limit: Int = 4096) {
        precondition(limit >= 1, "limit must be at least 1")
        self.limit = limit
    }

    /// The reply frame made for a call of exactly these bytes, if its interface's generation has not changed since.
    func reply(to message: ByteBuffer) -> ByteBuffer? {
        guard let entry = self.entries.withLock({ $0[message] }),
            entry.interface.replyNowGeneration == entry.generation
        else { return nil }
        return entry.reply
    }

    /// Keeps `reply`, the frame `interface` made at `generation` for the call of `message`'s bytes.
    func keep(_ reply: ByteBuffer, to message: ByteBuffer, interface: any VarlinkInterface, generation: UInt64) {
        // A copy of the call's bytes: the message is a slice of the connection's receive buffer.
        let key = ByteBuffer(bytes: message.readableBytesView)
        self.entries.withLock { entries in
            if entries.count >= self.limit && entries[key] == nil { entries.removeAll(keepingCapacity: true) }
            entries[key] = Entry(interface: interface, generation: generation, reply: reply)
        }
    }
}

import Logging
import NIOCore
import SettingsAPI
import Synchronization

/// The ``VarlinkReplySink`` of one call: enforces the reply rules and writes replies to the connection.
final class VarlinkCallReplies: VarlinkReplySink {
    private struct State {
        /// Whether the last reply was sent or the call ended.
        var finished = false
        /// Whether writing to the connection failed, i.e. the peer went away.
        var writeFailed = false
    }

    /// The call being answered.
    let call: VarlinkCall
    private let connection: VarlinkConnectionChannel
    /// The connection's logger.
    private let connectionLogger: Logger
    private let state = Mutex(State())

    init(call: VarlinkCall, connection: VarlinkConnectionChannel, logger: Logger) {
        self.call = call
        self.connection = connection
        self.connectionLogger = logger
    }

    /// The connection's logger with the call's method in its metadata, made only when something is logged: setting
    /// metadata costs more than a short call.
    private var logger: Logger {
        var logger = self.connectionLogger
        logger[metadataKey: "varlink_method"] = "\(self.call.method)"
        return logger
    }

    /// Whether a write to the connection failed, so the peer can no longer be answered.
    var writeFailed: Bool { self.state.withLock { $0.writeFailed } }

    func reply(_ parameters: JSONValue, continues: Bool) async throws {
        guard case .object = parameters else {
            self.logger.error(
                "Varlink handler replied with parameters that are not an object",
                metadata: ["json_type": "\(parameters.typeName)"]
            )
            throw VarlinkServerError.replyParametersNotAnObject
        }
        var continues = continues
        if continues && !self.call.more {
            self.logger.error(
                "Varlink handler replied with continues to a call without more; sending it as the last reply"
            )
            continues = false
        }
        try self.accept(last: !continues)
        try await self.write(VarlinkReply(parameters: parameters, continues: continues).encoded())
    }

    func reply(encodedParameters: [UInt8]) async throws {
        try self.accept(last: true)
        try await self.write(VarlinkReply.frame(encodedParameters: encodedParameters))
    }

    /// Sends a reply with `continues` that is already encoded (`frame`: the whole message and its NUL byte), to a
    /// call with `more`: for replies that many calls share, encoded once.
    func replyContinuing(frame: ByteBuffer) async throws {
        precondition(self.call.more, "a continuing reply needs a call with more")
        try self.accept(last: false)
        try await self.write(frame)
    }

    /// Takes a reply, the call's last when `last`; a reply after the last one is refused.
    private func accept(last: Bool) throws(VarlinkServerError) {
        let accepted = self.state.withLock { state in
            guard !state.finished else { return false }
            state.finished = last
            return true
        }
        guard accepted else {
            self.logger.error("Varlink handler replied after the last reply of its call")
            throw .replyAfterLastReply
        }
    }

    /// Sends `error` as the last reply; if the call already had its last reply, logs and drops it.
    func fail(with error: VarlinkError) async throws {
        let accepted = self.state.withLock { state in
            guard !state.finished else { return false }
            state.finished = true
            return true
        }
        guard accepted else {
            self.logger.warning(
                "Varlink handler threw an error after the last reply of its call; dropping it",
                metadata: ["varlink_error": "\(error.name)"]
            )
            return
        }
        try await self.write(VarlinkReply(error: error).encoded())
    }

    /// Ends the call: later replies are refused. Returns whether the call got its last reply (or needs none).
    func end() -> Bool {
        let finished = self.state.withLock { state in
            defer { state.finished = true }
            return state.finished
        }
        return finished || self.call.oneway
    }

    /// Writes a whole reply frame, unless the call is `oneway`; a failed write marks the peer gone.
    private func write(_ frame: ByteBuffer) async throws {
        guard !self.call.oneway else { return }
        do {
            try await self.connection.write(frame)
        } catch {
            self.state.withLock { $0.writeFailed = true }
            throw error
        }
    }
}

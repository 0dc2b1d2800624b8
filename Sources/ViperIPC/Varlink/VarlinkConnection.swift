import Logging
import NIOCore
import ServiceLifecycle
import SettingsAPI
import ViperSettings

/// Serves one accepted connection: reads its calls one after another and answers each before the next.
struct VarlinkConnection: Sendable {
    /// The connection.
    let channel: VarlinkConnectionChannel
    /// Lets the pipeline answer calls on the spot once this connection is served.
    let immediateReplies: VarlinkImmediateReplyControl
    /// Who is connected.
    let peer: Caller
    /// The served interfaces by name, `org.varlink.service` included.
    let interfaces: [String: any VarlinkInterface]
    /// How long the connection may stay without a call; `nil` for no limit.
    let idleTimeout: Duration?
    /// How long a graceful shutdown waits for the call in progress.
    let drainTimeout: Duration
    /// Bounds the lines a client can make the connection log at will.
    let logLimiter: VarlinkLogLimiter
    /// The server's logger with the client's metadata.
    let logger: Logger

    /// Serves the connection until the client closes it, a protocol violation or limit closes it, the server
    /// shuts down gracefully, or the task is cancelled. Never throws: failures are logged.
    func run() async {
        let activity = VarlinkConnectionActivity(
            channel: self.channel.channel,
            idleTimeout: self.idleTimeout,
            drainTimeout: self.drainTimeout,
            logger: self.logger
        )
        self.immediateReplies.enable(activity)
        do {
            try await withGracefulShutdownHandler {
                try await self.serve(activity: activity)
            } onGracefulShutdown: {
                activity.shutDown()
            }
        } catch {
            self.log(ending: error)
        }
        activity.end()
        await self.channel.close()
        self.logger.debug("Varlink connection closed")
    }

    /// Logs what ended the connection early.
    private func log(ending error: any Error) {
        if let error = error as? VarlinkFrameTooLargeError {
            if var metadata = self.logLimiter.admit(.messageTooLarge) {
                metadata["message_size"] = "\(error.size)"
                metadata["message_size_limit"] = "\(error.limit)"
                self.logger.notice("Closing Varlink connection: message exceeds the size limit", metadata: metadata)
            }
        } else {
            self.logger.debug("Varlink connection failed", metadata: ["error": "\(error)"])
        }
    }

    private func serve(activity: VarlinkConnectionActivity) async throws {
        while activity.becomeIdle(), let message = try await self.channel.next() {
            guard activity.beginCall() else { return }
            let keepOpen = try await self.process(message)
            self.immediateReplies.finished()
            guard keepOpen else { return }
        }
    }

    /// Handles one message; returns whether the connection stays open.
    private func process(_ request: VarlinkRequest) async throws -> Bool {
        switch request {
        case .protocolViolation(let reason):
            self.log(violation: reason)
            return false
        case .invalid(let method, let oneway, let error):
            try await self.refuse(method: method, oneway: oneway, error: error)
            return true
        case .call(let call):
            return await self.dispatch(call)
        }
    }

    private func log(violation reason: String) {
        if var metadata = self.logLimiter.admit(.protocolViolation) {
            metadata["reason"] = "\(reason)"
            self.logger.notice("Closing Varlink connection after a protocol violation", metadata: metadata)
        }
    }

    /// Answers a call that cannot be made (a method name or parameters that are not valid) with `error`.
    @inline(never)  // its frame is not held while a streaming call runs
    private func refuse(method: String, oneway: Bool, error: VarlinkError) async throws {
        self.logger.debug(
            "Invalid Varlink call",
            metadata: [
                // Quoted, escaped and cut: the client's text must not forge a line or flood the log.
                "varlink_method": "\(QuotedText.quote(method))",
                "varlink_error": "\(error.name)",
                "varlink_error_parameters": "\(error.parameters.serialized())",
            ]
        )
        if !oneway {
            try await self.channel.write(VarlinkReply(error: error).encoded())
        }
    }

    /// Routes a call to its interface and sends its replies; returns whether the connection stays open.
    ///
    /// The async functions of a call keep their frames small: a task's allocator keeps the most its frames ever
    /// took for as long as the task lives, and a connection's task lives as long as the connection (a watch holds it
    /// for hours). Logging and failures are handled in functions of their own.
    @inline(never)
    private func dispatch(_ call: VarlinkCall) async -> Bool {
        if self.logger.logLevel <= .trace { self.trace(call) }
        let replies = VarlinkCallReplies(call: call, connection: self.channel, logger: self.logger)
        do {
            try await self.invoke(call, replies: replies)
        } catch {
            return await self.failed(call, replies: replies, error: error)
        }
        return self.ended(call, replies: replies)
    }

    /// Runs the call's method; a streaming call runs until it ends or its client goes away.
    @inline(never)
    private func invoke(_ call: VarlinkCall, replies: VarlinkCallReplies) async throws {
        guard let interface = self.interfaces[call.interfaceName] else {
            throw VarlinkError.interfaceNotFound(call.interfaceName)
        }
        guard interface.methods.contains(call.methodName) else {
            throw VarlinkError.methodNotFound(call.method)
        }
        if call.more {
            try await StreamingCallRunner.run(until: self.channel.channel) { [peer] in
                try await interface.handle(call, peer: peer, replies: replies)
            }
        } else {
            try await interface.handle(call, peer: self.peer, replies: replies)
        }
    }

    /// Handles a call that threw: a declared error is sent as its reply; a client gone or a handler's failure
    /// closes the connection. Returns whether the connection stays open.
    @inline(never)
    private func failed(_ call: VarlinkCall, replies: VarlinkCallReplies, error: any Error) async -> Bool {
        guard let error = error as? VarlinkError else {
            self.close(call, replies: replies, after: error)
            return false
        }
        self.log(call, failure: error)
        do {
            try await replies.fail(with: error)
        } catch {
            self.log(call, unsent: error)
            return false
        }
        return self.ended(call, replies: replies)
    }

    /// Ends a call whose handler threw something other than a declared error: the client went away, the server is
    /// shutting down, or the handler failed.
    private func close(_ call: VarlinkCall, replies: VarlinkCallReplies, after error: any Error) {
        _ = replies.end()
        if error is StreamingCallRunner.Closed {
            self.logger(for: call).debug("Varlink streaming call ended: the client closed the connection")
        } else if self.isClosing(replies) {
            self.logger(for: call).debug("Varlink call ended with the connection", metadata: ["error": "\(error)"])
        } else {
            self.logger(for: call).error(
                "Varlink handler failed; closing the connection",
                metadata: ["error": "\(error)"]
            )
        }
    }

    private func log(_ call: VarlinkCall, failure: VarlinkError) {
        self.logger(for: call).debug("Varlink call failed", metadata: ["varlink_error": "\(failure.name)"])
    }

    private func log(_ call: VarlinkCall, unsent error: any Error) {
        self.logger(for: call).debug("Could not send a Varlink error reply", metadata: ["error": "\(error)"])
    }

    private func trace(_ call: VarlinkCall) {
        self.logger(for: call).trace("Varlink call", metadata: ["more": "\(call.more)", "oneway": "\(call.oneway)"])
    }

    /// Checks that a call that returned sent its last reply; returns whether the connection stays open.
    private func ended(_ call: VarlinkCall, replies: VarlinkCallReplies) -> Bool {
        guard replies.end() else {
            if !self.isClosing(replies) {
                self.logger(for: call).error("Varlink handler returned without its last reply; closing the connection")
            }
            return false
        }
        return !replies.writeFailed
    }

    /// The call's logger, made only when something is logged: setting metadata costs more than a short call.
    private func logger(for call: VarlinkCall) -> Logger {
        var logger = self.logger
        logger[metadataKey: "varlink_method"] = "\(QuotedText.quote(call.method))"
        return logger
    }

    /// Whether the connection or the server is going away, so that an unfinished call is no handler bug.
    private func isClosing(_ replies: VarlinkCallReplies) -> Bool {
        replies.writeFailed || Task.isCancelled || Task.isShuttingDownGracefully
    }
}

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
        } catch let error as VarlinkFrameTooLargeError {
            if var metadata = self.logLimiter.admit(.messageTooLarge) {
                metadata["message_size"] = "\(error.size)"
                metadata["message_size_limit"] = "\(error.limit)"
                self.logger.notice("Closing Varlink connection: message exceeds the size limit", metadata: metadata)
            }
        } catch {
            self.logger.debug("Varlink connection failed", metadata: ["error": "\(error)"])
        }
        activity.end()
        await self.channel.close()
        self.logger.debug("Varlink connection closed")
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
            if var metadata = self.logLimiter.admit(.protocolViolation) {
                metadata["reason"] = "\(reason)"
                self.logger.notice("Closing Varlink connection after a protocol violation", metadata: metadata)
            }
            return false
        case .invalid(let method, let oneway, let error):
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
            return true
        case .call(let call):
            return await self.dispatch(call)
        }
    }

    /// Routes a call to its interface and sends its replies; returns whether the connection stays open.
    private func dispatch(_ call: VarlinkCall) async -> Bool {
        // The call's logger, made only when something is logged: setting metadata costs more than a short call.
        lazy var logger: Logger = {
            var logger = self.logger
            logger[metadataKey: "varlink_method"] = "\(QuotedText.quote(call.method))"
            return logger
        }()
        if self.logger.logLevel <= .trace {
            logger.trace("Varlink call", metadata: ["more": "\(call.more)", "oneway": "\(call.oneway)"])
        }
        let replies = VarlinkCallReplies(call: call, connection: self.channel, logger: self.logger)
        do {
            guard let interface = self.interfaces[call.interfaceName] else {
                throw VarlinkError.interfaceNotFound(call.interfaceName)
            }
            guard interface.methods.contains(call.methodName) else {
                throw VarlinkError.methodNotFound(call.method)
            }
            if call.more {
                do {
                    try await StreamingCallRunner.run(until: self.channel.channel) { [peer] in
                        try await interface.handle(call, peer: peer, replies: replies)
                    }
                } catch is StreamingCallRunner.Closed {
                    _ = replies.end()
                    logger.debug("Varlink streaming call ended: the client closed the connection")
                    return false
                }
            } else {
                try await interface.handle(call, peer: self.peer, replies: replies)
            }
        } catch let error as VarlinkError {
            logger.debug("Varlink call failed", metadata: ["varlink_error": "\(error.name)"])
            do {
                try await replies.fail(with: error)
            } catch {
                logger.debug("Could not send a Varlink error reply", metadata: ["error": "\(error)"])
                return false
            }
        } catch {
            _ = replies.end()
            if self.isClosing(replies) {
                logger.debug("Varlink call ended with the connection", metadata: ["error": "\(error)"])
            } else {
                logger.error("Varlink handler failed; closing the connection", metadata: ["error": "\(error)"])
            }
            return false
        }
        guard replies.end() else {
            if !self.isClosing(replies) {
                logger.error("Varlink handler returned without its last reply; closing the connection")
            }
            return false
        }
        return !replies.writeFailed
    }

    /// Whether the connection or the server is going away, so that an unfinished call is no handler bug.
    private func isClosing(_ replies: VarlinkCallReplies) -> Bool {
        replies.writeFailed || Task.isCancelled || Task.isShuttingDownGracefully
    }
}

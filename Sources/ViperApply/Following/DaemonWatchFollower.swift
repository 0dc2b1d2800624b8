public import Logging
public import NIOCore
import NIOPosix
public import ServiceLifecycle
import SettingsAPI
import ViperPOSIX

/// Follows the settings daemon with `Watch` (every module, `more: true`) and hands each batch of events to the
/// Interactor; resumes after the Interactor's cursor. When the daemon goes away (a restart, a reload that closed
/// the connection) it connects again, 0.1 s later at first, doubling to 2 s, and resumes. A service: it runs until
/// graceful shutdown.
public struct DaemonWatchFollower: Service {
    public var socketPath: String
    public var interactor: ApplyInteractor
    public var logger: Logger
    public var eventLoopGroup: any EventLoopGroup

    /// The largest message the daemon may send (its replies are far smaller).
    static let messageLimit = 16 << 20

    public init(socketPath: String, interactor: ApplyInteractor, eventLoopGroup: any EventLoopGroup, logger: Logger) {
        self.socketPath = socketPath
        self.interactor = interactor
        self.eventLoopGroup = eventLoopGroup
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var delay = Duration.milliseconds(100)
            var lost = false
            var connectedOnce = false
            while !Task.isCancelled {
                var reason = "the daemon closed the stream"
                do {
                    _ = try await self.follow(after: await self.interactor.cursor) {
                        if lost {
                            self.logger.notice("\(connectedOnce ? "reconnected" : "connected") to the settings daemon")
                        }
                        connectedOnce = true
                        lost = false
                        delay = .milliseconds(100)
                    }
                } catch let refused as CursorRefused {
                    self.logger.warning(
                        "the settings daemon does not know cursor \(refused.cursor); starting over from the current values"
                    )
                    await self.interactor.forgetCursor()
                } catch let error as ApplyError {
                    self.logger.error("\(error)")
                } catch let error as IOError {
                    // The system's words ("No such file or directory"), not NIO's text, which names its own function.
                    reason = SystemErrorText.describe(error.errnoCode)
                } catch {
                    reason = "\(error)"
                }
                await self.interactor.connection(false)
                guard !Task.isCancelled else { break }
                if !lost {
                    self.logger.warning(
                        connectedOnce
                            ? "lost the connection to the settings daemon; reconnecting"
                            : "cannot reach the settings daemon yet; trying again",
                        metadata: ["socket": "\(self.socketPath)", "reason": "\(reason)"]
                    )
                    lost = true
                }
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(2))
            }
        }
    }

    /// One connection: sends Watch and hands events over until the stream ends; returns whether any came.
    private func follow(after cursor: String?, connected: () -> Void) async throws -> Bool {
        let channel = try await ClientBootstrap(group: self.eventLoopGroup)
            .connect(unixDomainSocketPath: self.socketPath) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        var parameters: [String: JSONValue] = ["keys": .array([])]
        if let cursor { parameters["after"] = .string(cursor) }
        let call: JSONValue = [
            "method": .string(SettingsMethod.watch.qualifiedName), "parameters": .object(parameters), "more": true,
        ]
        var bytes: [UInt8] = []
        call.write(into: &bytes)
        bytes.append(0)
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(bytes: bytes))
            await self.interactor.connection(true)
            var pending: [UInt8] = []
            var streamed = false
            for try await buffer in inbound {
                pending.append(contentsOf: buffer.readableBytesView)
                var events: [WatchEventViewModel] = []
                while let end = pending.firstIndex(of: 0) {
                    let message = Array(pending[..<end])
                    pending.removeSubrange(...end)
                    events.append(try self.event(from: message, cursor: cursor))
                }
                guard pending.count <= Self.messageLimit else {
                    throw ApplyError.daemon("a message grew past \(Self.messageLimit) bytes")
                }
                if !events.isEmpty {
                    if !streamed { connected() }
                    streamed = true
                    await self.interactor.received(events)
                }
            }
            return streamed
        }
    }

    /// The daemon refused `after`: its history no longer has the cursor, or it is not one of its cursors.
    struct CursorRefused: Error {
        var cursor: String
    }

    private func event(from message: [UInt8], cursor: String?) throws -> WatchEventViewModel {
        let reply = try JSONValue(parsing: message)
        if let error = reply["error"]?.stringValue {
            if error == "org.varlink.service.InvalidParameter", reply["parameters"]?["parameter"] == "after" {
                throw CursorRefused(cursor: cursor ?? "")
            }
            throw ApplyError.daemon("Watch failed: \(error) \(reply["parameters"]?.serialized() ?? "")")
        }
        guard let parameters = reply["parameters"] else { throw ApplyError.daemon("a reply without parameters") }
        return try JSONValueDecoder().decode(WatchEventViewModel.self, from: parameters)
    }
}

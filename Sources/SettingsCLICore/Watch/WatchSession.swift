import Glibc
import SettingsAPI
import ViperPOSIX

/// `settingsctl watch`: follows a `Watch` stream and prints each event, flushed, until interrupted; when the daemon
/// goes away (a restart, a reload that closed the connection), reconnects and resumes after the cursor of the last
/// `ready` or `change` event, saying so on standard error.
package struct WatchSession: Sendable {
    /// The socket.
    package var location: SocketLocator.Location
    /// Modules and keys to watch; every module when empty.
    package var targets: [String]
    /// Where to resume: a cursor printed earlier.
    package var after: String?
    /// One JSON object per line instead of text.
    package var json: Bool
    package var style: TextStyle

    package init(location: SocketLocator.Location, targets: [String], after: String?, json: Bool, style: TextStyle) {
        self.location = location
        self.targets = targets
        self.after = after
        self.json = json
        self.style = style
    }

    /// Runs until the process is interrupted; `output` gets each line. Throws when the first connection fails, or
    /// the daemon answers with an error (no such key or module, an unreadable cursor).
    package func run(
        output: (String) throws(CLIFailure) -> Void = StandardStream.output.writeLine
    ) throws(CLIFailure) -> Never {
        Self.unblockStopSignals()
        // Events come only when something changes: a standard output that cannot be written to is said now.
        if let code = StandardDescriptors.writable(STDOUT_FILENO) {
            throw CLIFailure(.failure, "cannot write to standard output: \(SystemErrorText.describe(code))")
        }
        var cursor = self.after
        var connectedOnce = false
        var delay = 0.1
        var lost = false
        while true {
            let outcome = self.follow(after: cursor, output: output) { event in
                if lost {
                    let resumed =
                        cursor.map { "resuming after cursor \(TableFormatter.printable($0))" } ?? "starting over"
                    StandardStream.error.write("settingsctl: reconnected to the settings daemon, \(resumed)\n")
                    lost = false
                }
                connectedOnce = true
                delay = 0.1
                // Only `ready` and `change` move the cursor: resuming after a `current` event's cursor (the
                // module's revision) would skip the current values not received yet, with no resync to say so.
                // Lost before `ready`, the watch asks again from where it asked before and prints them again.
                if event.event == .ready || event.event == .change, !event.cursor.isEmpty { cursor = event.cursor }
            }
            switch outcome {
            case .failure(let failure) where failure.status != .unreachable || !connectedOnce:
                throw failure
            case .failure, .success:
                if !lost {
                    StandardStream.error.write(
                        "settingsctl: lost the connection to the settings daemon; reconnecting…\n"
                    )
                    lost = true
                }
                Self.sleep(seconds: delay)
                delay = min(delay * 2, 2)
            }
        }
    }

    /// One connection: sends the call and prints events until the stream ends (the daemon went away), calling
    /// `moved` before printing each. A failure to connect is `.failure` with status `unreachable`; an error reply
    /// is its failure.
    private func follow(
        after cursor: String?,
        output: (String) throws(CLIFailure) -> Void,
        moved: (WatchEventViewModel) -> Void
    ) -> Result<Bool, CLIFailure> {
        var parameters: [String: JSONValue] = ["keys": .array(self.targets.map { .string($0) })]
        if let cursor { parameters["after"] = .string(cursor) }
        let call: JSONValue = [
            "method": .string(SettingsMethod.watch.qualifiedName), "parameters": .object(parameters), "more": true,
        ]
        var bytes: [UInt8] = []
        call.write(into: &bytes)
        bytes.append(0)
        let client = VarlinkClient(location: self.location)
        do {
            let connection = try UnixSocketConnection(path: self.location.path, timeoutSeconds: 30)
            return self.stream(bytes, on: connection, after: cursor, client: client, output: output, moved: moved)
        } catch {
            return .failure(client.failure(for: error))
        }
    }

    /// Sends the call `bytes` on `connection` and prints events until the stream ends; see ``follow(after:output:moved:)``.
    ///
    /// A function of its own because the connection, noncopyable, is made inside a `do` there: declared before it
    /// and assigned inside, Swift 6.3.1 rejects it ("copy of noncopyable typed value. This is a compiler bug").
    private func stream(
        _ bytes: [UInt8],
        on connection: consuming UnixSocketConnection,
        after cursor: String?,
        client: VarlinkClient,
        output: (String) throws(CLIFailure) -> Void,
        moved: (WatchEventViewModel) -> Void
    ) -> Result<Bool, CLIFailure> {
        var streamed = false
        var failure: CLIFailure?
        let received = Result { () throws(UnixSocketConnection.Failure) in
            try connection.send(bytes)
            try connection.receiveMessages(until: 0, limit: VarlinkClient.replyLimit, hangUp: STDOUT_FILENO) {
                message in
                let parameters: JSONValue
                let event: WatchEventViewModel
                do throws(CLIFailure) {
                    parameters = try VarlinkClient.decodeReply(message)
                } catch {
                    failure =
                        Self.isInvalidCursor(message)
                        ? CLIFailure(
                            .usage,
                            "'\(TableFormatter.printable(cursor ?? ""))' is not a cursor: pass one that watch printed"
                        )
                        // A mistyped key or module: the closest one, as `get` says.
                        : NameSuggestion.suggesting(error, asked: self.targets, client: client)
                    return false
                }
                do {
                    event = try JSONValueDecoder().decode(WatchEventViewModel.self, from: parameters)
                } catch {
                    failure = CLIFailure(.failure, "unexpected event from the settings daemon: \(error)")
                    return false
                }
                do throws(CLIFailure) {
                    streamed = true
                    moved(event)
                    if self.json {
                        try output(parameters.serialized())
                    } else if let line = WatchEventRenderer.render(event, style: self.style) {
                        try output(line)
                    }
                    return true
                } catch {
                    failure = error
                    return false
                }
            }
        }
        connection.close()
        if let failure { return .failure(failure) }
        if case .failure(.hungUp) = received {
            // As a write to it would: SIGPIPE, or the write's error when SIGPIPE is ignored.
            raise(SIGPIPE)
            return .failure(CLIFailure(.failure, "cannot write to standard output: \(SystemErrorText.describe(EPIPE))"))
        }
        if case .failure(let error) = received, !streamed { return .failure(client.failure(for: error)) }
        return .success(streamed)
    }

    /// Whether `message` is the error reply to an unreadable `after`.
    private static func isInvalidCursor(_ message: [UInt8]) -> Bool {
        guard let reply = try? JSONValue(parsing: message) else { return false }
        return reply["error"]?.stringValue == "org.varlink.service.InvalidParameter"
            && reply["parameters"]?["parameter"]?.stringValue == "after"
    }

    /// Lets Ctrl-C, SIGTERM and SIGHUP end the watch with their default action even when the program that started
    /// it blocked them (threads of a test runner or a service manager's helper often do, and children inherit it).
    private static func unblockStopSignals() {
        var signals = sigset_t()
        sigemptyset(&signals)
        for signal in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&signals, signal) }
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }

    private static func sleep(seconds: Double) {
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
        var left = timespec()
        while nanosleep(&request, &left) != 0 && errno == EINTR { request = left }
    }
}

import Glibc
package import SettingsAPI
import ViperPOSIX

/// A tiny blocking Varlink client: one connection, one call, one reply.
///
/// It writes `{"method": …, "parameters": …}` and a NUL byte, reads up to the next NUL byte and returns the
/// reply's parameters. Every failure is a ``CLIFailure`` with the documented exit status: the daemon cannot be
/// reached (3), it answered with a declared error (its own status), anything else (1).
///
/// It talks to viper-settingsd, or (``Peer/applier``) to viper-settings-apply on its own socket; the peer only
/// changes what the messages call it and how they say to reach it.
package struct VarlinkClient: Sendable {
    /// The service at the other end of the socket, for messages.
    package enum Peer: Sendable, Hashable {
        /// viper-settingsd, serving `io.viper.settings`.
        case settingsDaemon
        /// viper-settings-apply, serving `io.viper.settings.Apply`.
        case applier

        /// What messages call it: "the settings daemon".
        package var name: String {
            switch self {
            case .settingsDaemon: "the settings daemon"
            case .applier: "the applier (viper-settings-apply)"
            }
        }

        /// What to try when it cannot be reached.
        package var hint: String {
            switch self {
            case .settingsDaemon:
                "Is viper-settingsd running? Point settingsctl at another socket with --socket PATH"
                    + " or \(SocketLocator.environmentVariable)=PATH."
            case .applier:
                "Is viper-settings-apply running? (systemctl status viper-settings-apply) Point settingsctl at"
                    + " another socket with --apply-socket PATH or \(SocketLocator.applyEnvironmentVariable)=PATH."
            }
        }
    }

    /// The largest reply accepted: 16 MiB.
    ///
    /// This is settingsctl's own bound, not the daemon's: the daemon's `max-message-size` (1 MiB by default)
    /// limits the calls it reads, not its replies, and a `show` of a large module can be bigger than that. The
    /// bound keeps settingsctl's memory in check when a peer sends and sends without ending its message.
    package static let replyLimit = 16 << 20

    /// The socket to connect to.
    package var location: SocketLocator.Location
    /// How long the whole call may take: connecting, writing the call and reading the whole reply.
    package var timeoutSeconds: Int
    /// The service the socket belongs to, for messages.
    package var peer: Peer
    /// What may keep the peer from answering in time for this call, said after "did not answer within N s" (a dry
    /// run that runs the targets' checks); `nil`: nothing is expected to.
    package var slowAnswer: String?

    package init(location: SocketLocator.Location, timeoutSeconds: Int = 30, peer: Peer = .settingsDaemon) {
        self.location = location
        self.timeoutSeconds = timeoutSeconds
        self.peer = peer
    }

    /// Calls `method` of `io.viper.settings` and returns the parameters of its reply.
    package func call(_ method: SettingsMethod, _ parameters: JSONValue) throws(CLIFailure) -> JSONValue {
        try self.call(method: method.qualifiedName, parameters: parameters)
    }

    /// Calls the fully qualified `method` and returns the parameters of its reply.
    package func call(method: String, parameters: JSONValue) throws(CLIFailure) -> JSONValue {
        // Built member by member: a dictionary literal is an array of (key, value) pairs, one more generic type
        // for the runtime to instantiate in a short-lived process.
        var request: [String: JSONValue] = [:]
        request["method"] = .string(method)
        request["parameters"] = parameters
        var bytes: [UInt8] = []
        JSONValue.object(request).write(into: &bytes)
        bytes.append(0)
        let reply: [UInt8]
        do {
            let connection = try UnixSocketConnection(path: self.location.path, timeoutSeconds: self.timeoutSeconds)
            let exchanged = Result { () throws(UnixSocketConnection.Failure) -> [UInt8] in
                do throws(UnixSocketConnection.Failure) {
                    try connection.send(bytes)
                } catch {
                    // A daemon over a connection limit may answer with the limit's error and close before reading
                    // the call: the error is still there to read.
                    guard case .transfer(let code) = error, code == EPIPE || code == ECONNRESET,
                        let answer = try? connection.receive(until: 0, limit: Self.replyLimit)
                    else { throw error }
                    return answer
                }
                return try connection.receive(until: 0, limit: Self.replyLimit)
            }
            // Closed explicitly: a noncopyable value's deinit is not run on every path that throws.
            connection.close()
            reply = try exchanged.get()
        } catch {
            throw self.failure(for: error, callSize: bytes.count)
        }
        return try Self.decodeReply(reply, from: self.peer)
    }

    /// Reads a reply message (without its NUL byte) of `peer`: its parameters, or the failure its error names.
    package static func decodeReply(_ bytes: [UInt8], from peer: Peer = .settingsDaemon) throws(CLIFailure) -> JSONValue
    {
        // Made only for a failure: a reply that reads costs no interpolation.
        var unreadable: String { "could not read the reply of \(peer.name)" }
        let reply: JSONValue
        do {
            reply = try JSONValue(parsing: bytes)
        } catch {
            throw CLIFailure(.failure, "\(unreadable): \(error)")
        }
        guard case .object(let members) = reply else {
            throw CLIFailure(.failure, "\(unreadable): not a JSON object")
        }
        let parameters = members["parameters"] ?? .null
        let found: JSONValue = parameters == .null ? [:] : parameters
        guard case .object = found else {
            throw CLIFailure(.failure, "\(unreadable): parameters is not an object")
        }
        if let error = members["error"] {
            guard let name = error.stringValue else {
                throw CLIFailure(.failure, "\(unreadable): error is not a string")
            }
            throw CLIFailure(errorName: name, parameters: found, peer: peer)
        }
        return found
    }

    /// A call this large that loses its connection most likely went past the daemon's `max-message-size`.
    package static let largeCall = 64 << 10

    /// The failure, for people, of a connection to the daemon (or the applier) during a call of `callSize` bytes.
    package func failure(for error: UnixSocketConnection.Failure, callSize: Int) -> CLIFailure {
        let cut: Bool =
            switch error {
            case .transfer(EPIPE), .transfer(ECONNRESET), .closed: true
            default: false
            }
        guard cut && callSize > Self.largeCall else { return self.failure(for: error) }
        // The daemon closes a connection whose message is over its limit; it is not unreachable.
        return CLIFailure(
            .failure,
            "\(self.peer.name) closed the connection during a call of \(callSize) bytes: it refuses a message larger"
                + " than its max-message-size (1 MiB unless viper-settingsd.conf says otherwise); send less at once"
                + " (load the file one module at a time: jq '.modules |= {MODULE}' FILE | settingsctl load -),"
                + " or raise max-message-size"
        )
    }

    /// What is at `path` when it exists and is not a socket ("a regular file", "a directory"); `nil` otherwise.
    static func notASocket(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFSOCK else { return nil }
        return RegularFile.kind(of: info.st_mode)
    }

    /// The failure, for people, of a connection to the daemon (or the applier).
    package func failure(for error: UnixSocketConnection.Failure) -> CLIFailure {
        let daemon =
            "\(self.peer.name) at \(TableFormatter.printable(self.location.path)) (\(self.location.explanation))"
        let hint = self.peer.hint
        switch error {
        case .pathTooLong:
            return CLIFailure(.unreachable, "cannot reach \(daemon): the path is too long for a Unix socket")
        case .connect(let code):
            let reason = ProcessEnvironment.describe(errno: code)
            if let other = Self.notASocket(self.location.path) {
                return CLIFailure(
                    .unreachable,
                    "cannot reach \(daemon): \(self.location.path) is \(other), not a socket"
                )
            }
            if code == EACCES || code == EPERM {
                // The daemon may well be running: this user may not open its socket.
                return CLIFailure(
                    .unreachable,
                    "cannot reach \(daemon): \(reason): uid \(getuid()) may not open the socket (its mode, or that of a"
                        + " directory above it, keeps this user out); run settingsctl as a user allowed to, or point"
                        + " it at a socket of your own"
                )
            }
            return CLIFailure(.unreachable, "cannot reach \(daemon): \(reason)\n\(hint)")
        case .transfer(let code):
            let reason = ProcessEnvironment.describe(errno: code)
            return CLIFailure(.unreachable, "lost the connection to \(daemon): \(reason)")
        case .timedOut:
            let why = self.slowAnswer.map { ": \($0)" } ?? ""
            return CLIFailure(.unreachable, "\(daemon) did not answer within \(self.timeoutSeconds) s\(why)")
        case .closed:
            return CLIFailure(.unreachable, "\(daemon) closed the connection without answering")
        case .tooLarge:
            return CLIFailure(.failure, "the reply of \(daemon) is larger than \(Self.replyLimit >> 20) MiB")
        case .hungUp:
            return CLIFailure(.failure, "cannot write to standard output: \(ProcessEnvironment.describe(errno: EPIPE))")
        }
    }
}

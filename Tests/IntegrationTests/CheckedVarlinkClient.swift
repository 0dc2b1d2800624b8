import Foundation
import SettingsAPI
import Synchronization
import ViperSettingsTesting

/// A raw Varlink client for the end-to-end tests that checks every reply it receives against
/// `io.viper.settings.varlink`: a reply field that is not declared, a required field that is missing, a value of the
/// wrong type, or an undeclared error is recorded as a contract violation, so every method gets the check for free.
struct CheckedVarlinkClient {
    /// The socket of the daemon.
    var socketPath: String

    /// The interface description as built into the daemon (the same file).
    static let idl: VarlinkIDL = {
        do {
            return try VarlinkIDL(parsing: SettingsMethod.interfaceDescription)
        } catch {
            fatalError("\(error)")
        }
    }()

    /// The methods and errors of `io.viper.settings` seen in replies so far, by bare name.
    static let seen = Mutex<Set<String>>([])

    /// One reply: its parameters, its error name (`nil` for a normal reply) and what did not fit the IDL.
    struct Reply {
        var parameters: JSONValue
        var error: String?
        var violations: [String]
    }

    /// Calls `method` (bare name) of `io.viper.settings`; as `uid`, the call is sent from a child process that runs
    /// as that user (`setpriv` and python3), so that the daemon sees its credentials.
    func call(_ method: String, _ parameters: JSONValue = [:], asUser uid: UInt32? = nil) throws -> Reply {
        let request: JSONValue = ["method": .string("\(SettingsMethod.interface).\(method)"), "parameters": parameters]
        let bytes: [UInt8]
        if let uid {
            bytes = try self.exchangeAsUser(uid, request: request.serialized())
        } else {
            bytes = try self.exchange(Array(request.serialized().utf8) + [0])
        }
        let reply = try JSONValue(parsing: bytes)
        let replyParameters = reply["parameters"] ?? [:]
        let error = reply["error"]?.stringValue
        var violations: [String]
        if let error {
            if error.hasPrefix("\(SettingsMethod.interface).") {
                violations = Self.idl.problems(inError: error, parameters: replyParameters)
                Self.seen.withLock { _ = $0.insert(String(error.dropFirst(SettingsMethod.interface.count + 1))) }
            } else {
                violations = []  // org.varlink.service errors are declared by that interface, not ours
            }
        } else {
            violations = Self.idl.problems(inReplyOf: method, parameters: replyParameters)
            Self.seen.withLock { _ = $0.insert(method) }
        }
        return Reply(parameters: replyParameters, error: error, violations: violations)
    }

    /// Calls `method` with `more: true`: reads replies until `ready` accepts one, then, when `then` is given, runs it
    /// and reads replies until `done` accepts one (or an error reply comes). Each reply is checked against the IDL; one that does not
    /// say `continues: true` while the stream goes on is a violation too.
    func stream(
        _ method: String,
        _ parameters: JSONValue,
        ready: (Reply) -> Bool,
        then action: (() throws -> Void)? = nil,
        done: (Reply) -> Bool = { _ in true }
    ) throws -> [Reply] {
        let request: JSONValue = [
            "method": .string("\(SettingsMethod.interface).\(method)"), "parameters": parameters, "more": true,
        ]
        let descriptor = try self.connect()
        defer { close(descriptor) }
        let bytes = Array(request.serialized().utf8) + [0]
        guard bytes.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, 0) }) == bytes.count else {
            throw HarnessError("send: errno \(errno)")
        }
        var buffer: [UInt8] = []
        var replies: [Reply] = []
        func next() throws -> Reply {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while !buffer.contains(0) {
                let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { throw HarnessError("the daemon closed the stream or timed out") }
                buffer += chunk[..<count]
            }
            let end = buffer.firstIndex(of: 0)!
            let reply = try JSONValue(parsing: Array(buffer[..<end]))
            buffer.removeFirst(end + 1)
            let replyParameters = reply["parameters"] ?? [:]
            let error = reply["error"]?.stringValue
            var violations: [String]
            if let error {
                violations = Self.idl.problems(inError: error, parameters: replyParameters)
                Self.seen.withLock { _ = $0.insert(String(error.split(separator: ".").last!)) }
            } else {
                violations = Self.idl.problems(inReplyOf: method, parameters: replyParameters)
                if reply["continues"] != .bool(true) {
                    violations.append("\(method): a stream reply without continues")
                }
                Self.seen.withLock { _ = $0.insert(method) }
            }
            let parsed = Reply(parameters: replyParameters, error: error, violations: violations)
            replies.append(parsed)
            return parsed
        }
        while true {
            let reply = try next()
            if reply.error != nil { return replies }
            if ready(reply) { break }
        }
        guard let action else { return replies }
        try action()
        while true {
            let reply = try next()
            if reply.error != nil || done(reply) { return replies }
        }
    }

    private func connect() throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket: errno \(errno)") }
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in self.socketPath.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw HarnessError("connect \(self.socketPath): errno \(errno)")
        }
        return descriptor
    }

    private func exchange(_ request: [UInt8]) throws -> [UInt8] {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket: errno \(errno)") }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in self.socketPath.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { throw HarnessError("connect \(self.socketPath): errno \(errno)") }
        guard request.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, 0) }) == request.count else {
            throw HarnessError("send: errno \(errno)")
        }
        var reply: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while !reply.contains(0) {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw HarnessError("the daemon closed the connection or timed out") }
            reply += chunk[..<count]
        }
        return Array(reply[..<reply.firstIndex(of: 0)!])
    }

    private func exchangeAsUser(_ uid: UInt32, request: String) throws -> [UInt8] {
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX); s.settimeout(60); s.connect(sys.argv[1])
            s.sendall(sys.argv[2].encode() + b"\\0")
            data = b""
            while not data.endswith(b"\\0"):
                chunk = s.recv(65536)
                if not chunk: sys.exit("closed")
                data += chunk
            sys.stdout.write(data[:-1].decode())
            """
        let result = DaemonHarness.run([
            "/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "/usr/bin/python3", "-c",
            script, self.socketPath, request,
        ])
        guard result.status == 0 else { throw HarnessError("call as uid \(uid) failed: \(result)") }
        return Array(result.stdout.utf8)
    }
}

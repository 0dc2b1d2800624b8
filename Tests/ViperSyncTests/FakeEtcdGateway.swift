import Foundation
import Glibc
import Synchronization
import ViperTestSupport

@testable import ViperSync

/// A fake etcd JSON gateway on loopback, for the source's loop against gateways that etcd itself cannot play: it
/// answers every range read with revision 7 and no keys, and every watch as ``watch`` says, and counts the
/// requests. One connection per request (`Connection: close`), served on background threads until released.
final class FakeEtcdGateway: Sendable {
    /// How the gateway answers a watch.
    enum Watch: Sendable, Equatable {
        /// `created`, then the stream ends: a proxy that does not pass streamed answers on.
        case endAfterCreated
        /// A compaction (`compact_revision` 5, canceled), whatever revision the watch starts from.
        case compacted
        /// HTTP 404 with a gateway error document: the watch never comes up.
        case refused
        /// `created`, then the stream stays open, quiet, until ``watch`` changes.
        case hold
        /// `created` and one event (revision 8: `viper/m/recommended/s.k` = 1), then the stream stays open until
        /// ``watch`` changes.
        case deliverAndHold
        /// `created` and a burst of events written at once, one message each (revisions 8, 9…:
        /// `viper/m/recommended/s.k0` = 0, `s.k1` = 1…), then the stream stays open until ``watch`` changes.
        case burstAndHold(Int)
    }

    /// What the server's threads share; they hold it, not the server, so that releasing the server stops them.
    private final class State: Sendable {
        let listener: Int32
        let stopped = Atomic<Bool>(false)
        let ranges = Atomic<Int>(0)
        let probes = Atomic<Int>(0)
        let watches = Atomic<Int>(0)
        let watch: Mutex<Watch>
        let rangeBody = Mutex<String?>(nil)
        let rangePadding: Int
        init(listener: Int32, watch: Watch, rangePadding: Int) {
            self.listener = listener
            self.watch = Mutex(watch)
            self.rangePadding = rangePadding
        }
    }

    /// The port on 127.0.0.1.
    let port: Int
    private let state: State

    /// Range reads answered so far (probes not counted).
    var ranges: Int { self.state.ranges.load(ordering: .relaxed) }
    /// Probes (count-only range reads) answered so far.
    var probes: Int { self.state.probes.load(ordering: .relaxed) }
    /// Watches answered so far.
    var watches: Int { self.state.watches.load(ordering: .relaxed) }

    /// How the next watches are answered; a change also ends a watch held open by ``Watch/deliverAndHold``.
    var watch: Watch {
        get { self.state.watch.withLock { $0 } }
        set { self.state.watch.withLock { $0 = newValue } }
    }

    /// The answer to the next range reads in place of revision 7 with no keys; `nil` for that one.
    var rangeBody: String? {
        get { self.state.rangeBody.withLock { $0 } }
        set { self.state.rangeBody.withLock { $0 = newValue } }
    }

    /// Listens on a free loopback port. A range or probe answer, and a refused watch's, carries `rangePadding` bytes
    /// of whitespace more (to go over the source's limits).
    init(watch: Watch, rangePadding: Int = 0) throws {
        let listener = try LoopbackPort.listeningDescriptor()
        let state = State(listener: listener.descriptor, watch: watch, rangePadding: rangePadding)
        self.state = state
        self.port = listener.port
        Thread { Self.accept(state) }.start()
    }

    deinit {
        self.state.stopped.store(true, ordering: .relaxed)
        shutdown(self.state.listener, Int32(SHUT_RDWR))
        close(self.state.listener)
    }

    private static func accept(_ state: State) {
        while !state.stopped.load(ordering: .relaxed) {
            let connection = Descriptors.accept(state.listener)
            guard connection >= 0 else { return }
            Thread { Self.serve(state, on: connection) }.start()
        }
    }

    private static func serve(_ state: State, on connection: Int32) {
        defer { close(connection) }
        guard let (path, body) = Self.readRequest(connection) else { return }
        switch path {
        case "/v3/kv/range" where body.contains("count_only"):
            state.probes.add(1, ordering: .relaxed)
            let padding = String(repeating: " ", count: state.rangePadding)
            Self.send(connection, status: "200 OK", body: #"{"header":{"revision":"7"},"count":"0"\#(padding)}"#)
        case "/v3/kv/range":
            state.ranges.add(1, ordering: .relaxed)
            let padding = String(repeating: " ", count: state.rangePadding)
            let body = state.rangeBody.withLock { $0 } ?? #"{"header":{"revision":"7"},"kvs":[]\#(padding)}"#
            Self.send(connection, status: "200 OK", body: body)
        case "/v3/watch":
            state.watches.add(1, ordering: .relaxed)
            Self.watch(state, on: connection)
        default:
            Self.send(connection, status: "404 Not Found", body: #"{"code":5,"message":"Not Found"}"#)
        }
    }

    /// One watch message: a put of `viper/m/recommended/KEY` = `value` at `revision`.
    private static func event(key: String, value: Int, revision: Int) -> String {
        let key = EtcdBase64.encode(Array("viper/m/recommended/\(key)".utf8))
        let value = EtcdBase64.encode(Array("\(value)".utf8))
        return """
            {"result":{"header":{"revision":"\(revision)"},"events":[{"kv":{"key":"\(key)","value":"\(value)",\
            "mod_revision":"\(revision)"}}]}}
            """
    }

    /// Answers a watch as the state says, as chunks (the gateway's streaming).
    private static func watch(_ state: State, on connection: Int32) {
        let behaviour = state.watch.withLock { $0 }
        let created = #"{"result":{"header":{"revision":"7"},"created":true}}"#
        switch behaviour {
        case .refused:
            let padding = String(repeating: " ", count: state.rangePadding)
            Self.send(connection, status: "404 Not Found", body: #"{"code":5,"message":"Not Found"\#(padding)}"#)
            return
        case .endAfterCreated:
            Self.write(connection, Self.streamHead + Self.chunk(created) + "0\r\n\r\n")
        case .compacted:
            let compacted = #"{"result":{"header":{"revision":"7"},"compact_revision":"5","canceled":true}}"#
            Self.write(connection, Self.streamHead + Self.chunk(compacted) + "0\r\n\r\n")
        case .hold, .deliverAndHold, .burstAndHold:
            let events: String
            switch behaviour {
            case .deliverAndHold: events = Self.chunk(Self.event(key: "s.k", value: 1, revision: 8))
            case .burstAndHold(let count):
                events = (0..<count).map { Self.chunk(Self.event(key: "s.k\($0)", value: $0, revision: 8 + $0)) }
                    .joined()
            default: events = ""
            }
            Self.write(connection, Self.streamHead + Self.chunk(created) + events)
            while state.watch.withLock({ $0 }) == behaviour && !state.stopped.load(ordering: .relaxed) {
                usleep(10_000)  // polling for the test to end the stream, not a delay anything relies on
            }
            Self.write(connection, "0\r\n\r\n")
        }
    }

    private static let streamHead =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"

    private static func chunk(_ text: String) -> String {
        String(text.utf8.count, radix: 16) + "\r\n" + text + "\r\n"
    }

    /// A whole answer with `body`.
    private static func send(_ connection: Int32, status: String, body: String) {
        Self.write(
            connection,
            "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
                + "Connection: close\r\n\r\n" + body
        )
    }

    private static func write(_ connection: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { return }
            sent += count
        }
    }

    /// The path and body of the request on `connection` (its whole body, so that closing sends no reset).
    private static func readRequest(_ connection: Int32) -> (path: String, body: String)? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let separator = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        var contentLength = 0
        while true {
            if headEnd == nil, let range = Self.firstRange(of: separator, in: bytes) {
                headEnd = range
                let head = String(decoding: bytes[..<range], as: UTF8.self)
                for line in head.split(separator: "\r\n") {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    if parts.count == 2, parts[0].lowercased() == "content-length" {
                        contentLength = Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0
                    }
                }
            }
            if let headEnd, bytes.count >= headEnd + separator.count + contentLength {
                let head = String(decoding: bytes[..<headEnd], as: UTF8.self)
                let requestLine = head.split(separator: "\r\n").first ?? ""
                let words = requestLine.split(separator: " ")
                guard words.count >= 2 else { return nil }
                let body = String(decoding: bytes[(headEnd + separator.count)...], as: UTF8.self)
                return (String(words[1]), body)
            }
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return nil }
            bytes += buffer[..<count]
        }
    }

    private static func firstRange(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count)
        where haystack[start..<start + needle.count].elementsEqual(needle) {
            return start
        }
        return nil
    }
}

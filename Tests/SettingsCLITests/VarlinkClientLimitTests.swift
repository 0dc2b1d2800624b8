import SettingsAPI
import SettingsCLICore
import Testing

@Suite("VarlinkClient's timeout and reply limit")
struct VarlinkClientLimitTests {
    static func client(_ path: String, timeoutSeconds: Int) -> VarlinkClient {
        VarlinkClient(location: .init(path: path, origin: .option), timeoutSeconds: timeoutSeconds)
    }

    @Test("the timeout bounds the whole reply: a daemon that trickles it a byte at a time times out")
    func trickledReplyTimesOut() throws {
        // 80 bytes 100 ms apart take 8 s; each byte comes well within the 1 s timeout, the whole reply does not.
        let reply =
            Array(#"{"parameters":{"key":"network.proxy.port","padding":"........................"}}"#.utf8) + [0]
        let server = FakeVarlinkServer(pieces: reply.map { [$0] }, pauseMicroseconds: 100_000)
        let failure = #expect(throws: CLIFailure.self) {
            try Self.client(server.path, timeoutSeconds: 1).call(.listModules, [:])
        }
        #expect(failure?.status == .unreachable)
        #expect(failure?.message.contains("did not answer within 1 s") == true)
    }

    @Test("the timeout bounds sending too: a daemon that reads a large call too slowly times out")
    func slowReaderTimesOut() throws {
        // The fake daemon reads one byte per call: 64 MiB take it far longer than the 1 s timeout.
        let server = FakeVarlinkServer(pieces: [], pauseMicroseconds: 0)
        let connection = try UnixSocketConnection(path: server.path, timeoutSeconds: 1)
        let failure = #expect(throws: UnixSocketConnection.Failure.self) {
            try connection.send(Array(repeating: UInt8(ascii: "x"), count: 64 << 20))
        }
        #expect(failure == .timedOut)
    }

    @Test("a stream (watch) waits without the timeout: messages that come after it are still read")
    func streamOutlivesTimeout() throws {
        // Two messages 1.5 s apart on a connection whose timeout is 1 s: a stream is silent while nothing changes.
        let first = Array(#"{"parameters":{"event":"ready"},"continues":true}"#.utf8) + [0]
        let second = Array(#"{"parameters":{"event":"change"},"continues":true}"#.utf8) + [0]
        let server = FakeVarlinkServer(pieces: [first, second], pauseMicroseconds: 1_500_000)
        let connection = try UnixSocketConnection(path: server.path, timeoutSeconds: 1)
        try connection.send(Array(#"{"method":"io.viper.settings.Watch","more":true}"#.utf8) + [0])
        var received: [String] = []
        let ended = #expect(throws: UnixSocketConnection.Failure.self) {
            try connection.receiveMessages(until: 0, limit: 1 << 20) { message in
                received.append(String(decoding: message, as: UTF8.self))
                return true
            }
        }
        #expect(received.count == 2, "\(received)")
        #expect(received.last?.contains("change") == true)
        #expect(ended == .closed, "the stream ends when the server closes, not at the timeout")
    }

    @Test("a reply of exactly 16 MiB is read")
    func replyAtLimit() throws {
        #expect(VarlinkClient.replyLimit == 16 << 20)
        let frame = Array(#"{"parameters":{"x":""#.utf8)
        let end = Array(#""}}"#.utf8)
        let padding = [UInt8](repeating: UInt8(ascii: "a"), count: VarlinkClient.replyLimit - frame.count - end.count)
        let server = FakeVarlinkServer(pieces: [frame + padding + end + [0]])
        let parameters = try Self.client(server.path, timeoutSeconds: 60).call(.listModules, [:])
        #expect(parameters["x"]?.stringValue?.utf8.count == padding.count)
    }

    @Test("a reply past 16 MiB is refused with a message naming the limit")
    func replyPastLimit() throws {
        let piece = [UInt8](repeating: UInt8(ascii: " "), count: 1 << 20)
        let server = FakeVarlinkServer(pieces: Array(repeating: piece, count: 17) + [[0]], pauseMicroseconds: 0)
        let failure = #expect(throws: CLIFailure.self) {
            try Self.client(server.path, timeoutSeconds: 60).call(.listModules, [:])
        }
        #expect(failure?.status == .failure)
        #expect(failure?.message.contains("larger than 16 MiB") == true)
    }
}

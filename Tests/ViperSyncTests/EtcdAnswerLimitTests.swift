import AsyncHTTPClient
import Logging
import Testing
import ViperSettings
import ViperTestSupport

@testable import ViperSync

/// The etcd source's size limits (64 MiB in the daemon) are told in words naming the member, in `status` and in the
/// log, as the HTTP source tells its body limit: `range answer larger than 64 MiB from 127.0.0.1:2379`, not
/// `NIOTooManyBytesError(maxBytes: Optional(67108864))`.
@Suite("etcd answers not believed: over the size limit, or malformed")
struct EtcdAnswerLimitTests {
    @Test("a range answer over the limit fails the read in words naming the member, in status and the log")
    func rangeOverTheLimit() async throws {
        let gateway = try FakeEtcdGateway(watch: .hold, rangePadding: 2000)
        let recorder = LogRecorder()
        let configuration = try EtcdSourceConfiguration.parse(
            url: "etcd://127.0.0.1:\(gateway.port)/viper",
            backoff: Backoff(initial: .seconds(3600), maximum: .seconds(3600), jitter: 0)
        )
        let source = EtcdRemoteSource(
            configuration: configuration,
            clock: ManualClock(),
            maximumResponseSize: 1 << 10,
            logger: recorder.logger
        )
        let status = SyncStatusRecorder(source: source.endpointDescription)
        let member = "127.0.0.1:\(gateway.port)"
        let expected = "etcd \(member): range read failed: range answer larger than 1 KiB from \(member)"
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await source.run(applying: { _ in .stored }, status: status) }
            defer { group.cancelAll() }
            try #require(await Eventually.wait { status.snapshot.lastError != nil })
            #expect(status.snapshot.state == .failing)
            #expect(status.snapshot.lastError == expected)
            #expect(recorder.messages(at: .warning) == [expected])
        }
        withExtendedLifetime(gateway) {}
    }

    @Test("a range answer that does not list what it counts, or lists it as no list, is refused: not read as no keys")
    func malformedRangeAnswers() async throws {
        let gateway = try FakeEtcdGateway(watch: .hold)
        let client = EtcdGatewayClient(httpClient: .shared, maximumResponseSize: 64 << 20)
        let endpoint = (host: "127.0.0.1", port: gateway.port)
        let key = EtcdBase64.encode(Array("viper/m/recommended/s.k".utf8))
        let kv = #"{"key":"\#(key)","value":"MQ=="}"#
        let refused: [(body: String, reason: String)] = [
            (#"{"header":{"revision":"5"},"kvs":null,"count":"1"}"#, "range: kvs is not a list but null"),
            (#"{"header":{"revision":"5"},"count":"1"}"#, "range: the answer counts \"1\" keys but lists 0"),
            (#"{"header":{"revision":"5"},"kvs":{"a":1}}"#, #"range: kvs is not a list but {"a":1}"#),
            (#"{"header":{"revision":"5"},"kvs":"nope"}"#, #"range: kvs is not a list but "nope""#),
            (#"{"header":{"revision":"5"},"kvs":null}"#, "range: kvs is not a list but null"),
            (
                #"{"header":{"revision":"5"},"kvs":[\#(kv)],"count":"100","more":true}"#,
                "range: the answer says more keys follow (more: true), none was asked to"
            ),
            (#"{"header":{"revision":"-5"}}"#, #"range: the header revision "-5" is not a positive 64-bit number"#),
            (
                #"{"header":{"revision":"99999999999999999999999"}}"#,
                #"range: the header revision "99999999999999999999999" is not a positive 64-bit number"#
            ),
        ]
        for (body, reason) in refused {
            gateway.rangeBody = body
            await #expect(throws: RemoteSyncError.attempt(reason), "\(body)") {
                try await client.range(endpoint: endpoint, key: [0x61], rangeEnd: [0x62], timeout: .seconds(60))
            }
        }
        gateway.rangeBody = #"{"header":{"revision":"5"},"kvs":[\#(kv)],"count":"1"}"#
        let read = try await client.range(endpoint: endpoint, key: [0x61], rangeEnd: [0x62], timeout: .seconds(60))
        #expect(read.revision == 5 && read.pairs.count == 1)
        gateway.rangeBody = #"{"header":{"revision":"5"}}"#
        let empty = try await client.range(endpoint: endpoint, key: [0x61], rangeEnd: [0x62], timeout: .seconds(60))
        #expect(empty.revision == 5 && empty.pairs.isEmpty, "etcd leaves kvs and count out when nothing is there")
    }

    @Test("the gateway's limits in words: range and probe answers, watch messages, a watch's error answer")
    func limitsInWords() async throws {
        let gateway = try FakeEtcdGateway(watch: .refused, rangePadding: 70_000)
        let client = EtcdGatewayClient(httpClient: .shared, maximumResponseSize: 64 << 20)
        let small = EtcdGatewayClient(httpClient: .shared, maximumResponseSize: 1 << 10)
        let endpoint = (host: "127.0.0.1", port: gateway.port)
        let member = "127.0.0.1:\(gateway.port)"
        await #expect(throws: RemoteSyncError.attempt("range answer larger than 1 KiB from \(member)")) {
            try await small.range(endpoint: endpoint, key: [0x61], rangeEnd: [0x62], timeout: .seconds(60))
        }
        // The daemon's limit is 64 MiB; a probe's, 64 KiB.
        _ = try await client.range(endpoint: endpoint, key: [0x61], rangeEnd: [0x62], timeout: .seconds(60))
        await #expect(throws: RemoteSyncError.attempt("probe answer larger than 64 KiB from \(member)")) {
            try await client.probe(endpoint: endpoint, key: [0x61], rangeEnd: [0x62], timeout: .seconds(60))
        }
        await #expect(
            throws: RemoteSyncError.attempt(
                "watch: HTTP 404, with an error answer larger than 64 KiB from \(member)"
            )
        ) {
            try await client.watch(
                endpoint: endpoint,
                key: [0x61],
                rangeEnd: [0x62],
                startRevision: 8,
                timeout: .seconds(60),
                connected: {},
                events: { _, _ in }
            )
        }
        #expect(ByteCountText.describe(64 << 20) == "64 MiB")
        #expect(ByteCountText.describe(4_194_305) == "4194305 bytes")
        var splitter = EtcdJSONStreamSplitter(maximumObjectSize: 64, from: member)
        #expect(throws: RemoteSyncError.attempt("watch message larger than 64 bytes from \(member)")) {
            try splitter.append(Array(#"{"result":{"events":["#.utf8) + Array(repeating: UInt8(ascii: " "), count: 64))
        }
        withExtendedLifetime(gateway) {}
    }
}

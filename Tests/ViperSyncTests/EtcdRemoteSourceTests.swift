import AsyncHTTPClient
import Logging
import SettingsAPI
import Testing
import ViperSettings

@testable import ViperSync

/// `EtcdRemoteSource` against real `etcd` members on loopback.
@Suite(.serialized, .enabled(if: EtcdCluster.isAvailable, "needs /usr/bin/etcd (Debian package etcd-server)"))
struct EtcdRemoteSourceTests {
    /// A quick backoff for the tests.
    static let backoff = Backoff(initial: .milliseconds(100), maximum: .milliseconds(400), jitter: 0.1)

    /// A source for `url`.
    static func source(
        _ url: String,
        requestTimeout: Duration = .seconds(10),
        probeInterval: Duration = .seconds(10),
        watchStart: @escaping @Sendable (Int64) -> Int64 = { $0 + 1 }
    ) throws -> EtcdRemoteSource {
        var logger = Logger(label: "etcd-test")
        logger.logLevel = .notice
        let configuration = try EtcdSourceConfiguration.parse(
            url: url,
            backoff: Self.backoff,
            requestTimeout: requestTimeout,
            probeInterval: probeInterval
        )
        return EtcdRemoteSource(configuration: configuration, logger: logger, watchStart: watchStart)
    }

    /// Runs `source` while `body` runs, then cancels it.
    static func running<T: Sendable>(
        _ source: EtcdRemoteSource,
        log: EtcdSnapshotLog,
        status: SyncStatusRecorder,
        _ body: () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await source.run(applying: log.apply, status: status) }
            defer { group.cancelAll() }
            return try await body()
        }
    }

    @Test func initialRangeDeliversExistingKeysAndSkipsInvalidOnes() async throws {
        let cluster = try EtcdCluster(members: 1)
        try await cluster.start()
        let client = EtcdTestClient(ports: cluster.clientPorts)
        try await client.put("viper/network/recommended/proxy.mode", #""auto""#)
        try await client.put("viper/network/mandatory/proxy.port", "8080")
        try await client.put("viper/display/recommended/night.enabled", "true")
        try await client.put("viper/network/recommended/proxy.bad", "not json")
        try await client.put("viper/network/other/proxy.mode", #""x""#)
        try await client.put("viper/network/recommended/noitem", "1")
        try await client.put("viper/toplevel", "1")
        let revision = try await client.put("viperx/network/recommended/proxy.mode", #""outside""#)

        let source = try Self.source(cluster.url(prefix: "viper"))
        let log = EtcdSnapshotLog()
        let status = SyncStatusRecorder(source: source.endpointDescription)
        let snapshot = try await Self.running(source, log: log, status: status) {
            try await log.wait("the initial range") { _ in true }
        }
        #expect(snapshot.revision == String(revision))
        #expect(
            snapshot.modules == [
                "network": RemoteModuleValues(recommended: ["proxy.mode": "auto"], mandatory: ["proxy.port": 8080]),
                "display": RemoteModuleValues(recommended: ["night.enabled": true]),
            ]
        )
        // Skipped keys travel with the snapshot for `status` to list: a value that is not JSON as the setting it is
        // for (explain finds it), a key off the layout as written in etcd.
        #expect(
            snapshot.rejected.map(\.key) == [
                "network.proxy.bad", "viper/network/other/proxy.mode", "viper/network/recommended/noitem",
                "viper/toplevel",
            ]
        )
        #expect(status.snapshot.state == .ok)
        #expect(status.snapshot.revision == String(revision))
        #expect(status.snapshot.nextAttempt == nil)
    }

    @Test func aValueThatStopsBeingJSONDropsTheKeyAndSaysSo() async throws {
        let cluster = try EtcdCluster(members: 1)
        try await cluster.start()
        let client = EtcdTestClient(ports: cluster.clientPorts)
        try await client.put("viper/network/mandatory/proxy.port", "8080")
        let source = try Self.source(cluster.url(prefix: "viper"))
        let log = EtcdSnapshotLog()
        let status = SyncStatusRecorder(source: source.endpointDescription)
        try await Self.running(source, log: log, status: status) {
            _ = try await log.wait("the initial range") { $0.modules["network"]?.mandatory["proxy.port"] == 8080 }
            try await client.put("viper/network/mandatory/proxy.port", "garbage")
            let broken = try await log.wait("the garbage") { !$0.rejected.isEmpty }
            #expect(broken.modules["network"]?.mandatory["proxy.port"] == nil, "the old value is not kept silently")
            #expect(broken.rejected.map(\.key) == ["network.proxy.port"])
            #expect(broken.rejected.first?.reason.hasPrefix("viper/network/mandatory/proxy.port: ") == true)
            #expect(broken.rejected.first?.reason.hasSuffix("the key sets no value until it holds JSON") == true)
            try await client.put("viper/network/mandatory/proxy.port", "3128")
            let fixed = try await log.wait("the fix") { $0.modules["network"]?.mandatory["proxy.port"] == 3128 }
            #expect(fixed.rejected.isEmpty)
        }
    }

    @Test func putAndDeleteArriveThroughTheWatch() async throws {
        let cluster = try EtcdCluster(members: 1)
        try await cluster.start()
        let client = EtcdTestClient(ports: cluster.clientPorts)
        let source = try Self.source(cluster.url(prefix: "fleet/viper"))
        let log = EtcdSnapshotLog()
        let status = SyncStatusRecorder(source: source.endpointDescription)
        try await Self.running(source, log: log, status: status) {
            _ = try await log.wait("the initial range") { $0.modules.isEmpty }
            let put = try await client.put("fleet/viper/network/mandatory/proxy.mode", #""none""#)
            let afterPut = try await log.wait("the put") { $0.modules["network"]?.mandatory["proxy.mode"] == "none" }
            #expect(afterPut.revision == String(put))
            try await client.put("fleet/viper/network/recommended/proxy.port", "3128")
            try await client.put("fleet/viper/network/recommended/proxy.host", "{broken")
            _ = try await log.wait("the second put") { $0.modules["network"]?.recommended["proxy.port"] == 3128 }
            let delete = try await client.delete("fleet/viper/network/mandatory/proxy.mode")
            let afterDelete = try await log.wait("the delete") { $0.revision == String(delete) }
            #expect(afterDelete.modules == ["network": RemoteModuleValues(recommended: ["proxy.port": 3128])])
            // The status is recorded just after the snapshot is applied.
            try await Self.waitFor("the delete's revision in the status") {
                status.snapshot.revision == String(delete)
            }
            #expect(status.snapshot.state == .ok)
            // The range read and one per change, or fewer where two came together (the two puts, read while the
            // first was applied, are applied as one snapshot): no spurious re-lists.
            #expect((4...5).contains(log.count), "\(log.count) snapshots")
        }
    }

    @Test func syncNowReListsAndReturnsOnceApplied() async throws {
        let cluster = try EtcdCluster(members: 1)
        try await cluster.start()
        let client = EtcdTestClient(ports: cluster.clientPorts)
        let source = try Self.source(cluster.url(prefix: "viper"))
        let log = EtcdSnapshotLog()
        let status = SyncStatusRecorder(source: source.endpointDescription)
        try await Self.running(source, log: log, status: status) {
            _ = try await log.wait("the initial range") { _ in true }
            let revision = try await client.put("viper/a/recommended/b.c", "1")
            let before = log.count
            try await source.syncNow()
            #expect(log.count > before)
            #expect(Int64(log.latest?.revision ?? "") ?? 0 >= revision)
            #expect(log.latest?.modules["a"]?.recommended["b.c"] == 1)
            // The watch resumes after the re-list.
            try await client.put("viper/a/recommended/b.d", "2")
            _ = try await log.wait("a put after sync") { $0.modules["a"]?.recommended["b.d"] == 2 }
        }
        // Stopped: fails at once, saying so.
        await #expect(throws: SyncInterruption.sourceStopped) { try await source.syncNow() }
    }

    @Test func compactedWatchRevisionReListsAndMissesNothing() async throws {
        let cluster = try EtcdCluster(members: 1)
        try await cluster.start()
        let client = EtcdTestClient(ports: cluster.clientPorts)
        var last: Int64 = 0
        for index in 0..<5 {
            last = try await client.put("viper/m/recommended/s.k\(index)", "\(index)")
        }
        try await client.compact(last)
        // The first watch starts from revision 1, long compacted: etcd cancels it, the source re-lists.
        let watches = EtcdCounter()
        let source = try Self.source(cluster.url(prefix: "viper")) { listed in
            watches.increment() == 0 ? 1 : listed + 1
        }
        let log = EtcdSnapshotLog()
        let status = SyncStatusRecorder(source: source.endpointDescription)
        try await Self.running(source, log: log, status: status) {
            _ = try await log.wait("the initial range") { $0.modules["m"]?.recommended.count == 5 }
            // The re-list after the compaction, then the second watch, from the revision after it.
            try await Self.waitFor("the second watch") { watches.value >= 2 }
            #expect(log.count >= 2)
            #expect(log.latest?.modules["m"]?.recommended.count == 5)
            let put = try await client.put("viper/m/recommended/s.after", "true")
            let snapshot = try await log.wait("the put after the compaction") { $0.revision == String(put) }
            #expect(snapshot.modules["m"]?.recommended.count == 6)
            #expect(watches.value == 2)
            #expect(log.count == 3)  // range, re-list after the compaction, the put
        }
    }

    @Test func threeMemberFailoverMissesNothing() async throws {
        let cluster = try EtcdCluster(members: 3)
        try await cluster.start()
        let writer = EtcdTestClient(ports: [cluster.clientPorts[1], cluster.clientPorts[2]])
        let source = try Self.source(cluster.url(prefix: "viper"))
        let log = EtcdSnapshotLog()
        let status = SyncStatusRecorder(source: source.endpointDescription)
        try await Self.running(source, log: log, status: status) {
            try await writer.put("viper/m/recommended/s.k0", "0")
            _ = try await log.wait("the first key") { $0.modules["m"]?.recommended["s.k0"] == 0 }
            // The source talks to the first endpoint: kill it and keep writing through the others.
            cluster.stop(member: 0)
            for index in 1...20 {
                try await writer.put("viper/m/recommended/s.k\(index)", "\(index)")
            }
            let final = try await writer.put("viper/m/mandatory/s.done", "true")
            let snapshot = try await log.wait(timeout: .seconds(10), "every key after failover") {
                (Int64($0.revision) ?? 0) >= final
            }
            #expect(snapshot.modules["m"]?.recommended.count == 21)
            #expect(snapshot.modules["m"]?.mandatory["s.done"] == true)
            try await Self.waitFor("state ok after failover") { status.snapshot.state == .ok }
        }
    }

    /// A quiet, healthy watch: each answered probe is a success, so the last success does not grow old.
    @Test func answeredProbesMoveTheLastSuccess() async throws {
        let cluster = try EtcdCluster(members: 1)
        try await cluster.start()
        let source = try Self.source(cluster.url(prefix: "viper"), probeInterval: .milliseconds(100))
        let status = SyncStatusRecorder(source: source.endpointDescription)
        try await Self.running(source, log: EtcdSnapshotLog(), status: status) {
            try await Self.waitFor("state ok") { status.snapshot.state == .ok && status.snapshot.lastSuccess != nil }
            let first = try #require(status.snapshot.lastSuccess)
            try await Self.waitFor("a later success, from a probe") { (status.snapshot.lastSuccess ?? 0) > first }
            #expect(status.snapshot.state == .ok)
        }
    }

    @Test func hungMemberIsLeftForAnotherAfterAFailedProbe() async throws {
        let cluster = try EtcdCluster(members: 3)
        try await cluster.start()
        let writer = EtcdTestClient(ports: [cluster.clientPorts[1], cluster.clientPorts[2]])
        let source = try Self.source(
            cluster.url(prefix: "viper"),
            requestTimeout: .seconds(1),
            probeInterval: .milliseconds(200)
        )
        let log = EtcdSnapshotLog()
        let status = SyncStatusRecorder(source: source.endpointDescription)
        try await Self.running(source, log: log, status: status) {
            try await writer.put("viper/m/recommended/s.k0", "0")
            _ = try await log.wait("the first key") { $0.modules["m"]?.recommended["s.k0"] == 0 }
            // The source watches through the first endpoint. Frozen, that member keeps the watch connection open
            // and answers nothing: only the probe can tell it from a quiet cluster.
            cluster.pause(member: 0)
            let final = try await writer.put("viper/m/mandatory/s.k1", "1")
            let snapshot = try await log.wait(timeout: .seconds(15), "the key written while the member hangs") {
                (Int64($0.revision) ?? 0) >= final
            }
            #expect(snapshot.modules["m"]?.mandatory["s.k1"] == 1)
            #expect(snapshot.modules["m"]?.recommended["s.k0"] == 0)
        }
    }

    @Test func etcdDownAtStartIsRecordedThenRecovers() async throws {
        let cluster = try EtcdCluster(members: 1)
        let source = try Self.source(cluster.url(prefix: "viper"))
        let log = EtcdSnapshotLog()
        let status = SyncStatusRecorder(source: source.endpointDescription)
        try await Self.running(source, log: log, status: status) {
            try await Self.waitFor("a recorded failure") {
                status.snapshot.state == .failing && status.snapshot.nextAttempt != nil
                    && status.snapshot.lastError?.contains("range read failed") == true
            }
            #expect(status.snapshot.lastSuccess == nil)
            #expect(log.count == 0)
            // Nothing listens yet: the connection is refused, and said so (it was retried until the request's
            // deadline, then named as a timeout).
            #expect(status.snapshot.lastError?.contains("connection refused") == true, "\(status.snapshot)")
            try await cluster.start()
            try await EtcdTestClient(ports: cluster.clientPorts).put("viper/m/recommended/s.k", #""up""#)
            _ = try await log.wait("the value once etcd is up") { $0.modules["m"]?.recommended["s.k"] == "up" }
            try await Self.waitFor("state ok") { status.snapshot.state == .ok }
            #expect(status.snapshot.lastError == nil)
            #expect(status.snapshot.nextAttempt == nil)
            #expect(status.snapshot.lastSuccess != nil)
        }
    }

    /// Polls the status `condition` (the recorder has no callback) for up to 60 s: a loaded machine is slow.
    static func waitFor(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw EtcdTestFailure("no \(what) within 60 s") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// A member that answers a range read at once but trickles its body: the read fails at its timeout, however
/// steadily bytes come, so that the source moves on (it was held for as long as the member trickled).
@Suite("etcd gateway against a trickling member")
struct EtcdTricklingMemberTests {
    @Test func rangeFailsAtItsTimeout() async throws {
        let server = try TricklingHTTPServer(interval: .milliseconds(100))
        let gateway = EtcdGatewayClient(httpClient: .shared, maximumResponseSize: 1 << 20)
        let endpoint = (host: "127.0.0.1", port: server.port)
        let range = await #expect(throws: RemoteSyncError.self) {
            try await gateway.range(
                endpoint: endpoint,
                key: Array("a".utf8),
                rangeEnd: Array("b".utf8),
                timeout: .seconds(1)
            )
        }
        #expect("\(range.map { "\($0)" } ?? "")".contains("range: no complete response within"))
        #expect(server.bytesSent > 0, "the body had begun")
        withExtendedLifetime(server) {}
    }
}

import Logging
import Testing
import ViperSettings
import ViperSync
import ViperTestSupport

/// `syncNow()` when the source stops (the daemon stops) before the attempt it waits for ended: it must say so, not
/// return as if the attempt had finished, with the status of an earlier attempt standing in for it.
@Suite("a sync the stopping source cuts short")
struct SyncInterruptionTests {
    /// The answer to the loop's own first attempt: a failure at once, so that the next attempt is the sync's.
    private static let serverError =
        "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    /// Long delays: only `syncNow()` makes a second attempt, and a held one never times out during a test.
    private static let rarely = Backoff(initial: .seconds(3600), maximum: .seconds(3600), jitter: 0)

    private static func httpSource(port: Int) -> (HTTPRemoteSource, shutdown: @Sendable () async throws -> Void) {
        let configuration = HTTPSourceConfiguration(
            url: "http://127.0.0.1:\(port)/fleet.json",
            pollInterval: .seconds(3600),
            requestTimeout: .seconds(3600),
            readTimeout: .seconds(3600),
            backoff: Self.rarely
        )
        let client = HTTPRemoteSource.makeHTTPClient(configuration: configuration)
        let source = HTTPRemoteSource(
            configuration: configuration,
            httpClient: client,
            logger: HTTPSourceHarness.logger
        )
        return (source, { try await client.shutdown() })
    }

    private static func etcdSource(port: Int) throws -> EtcdRemoteSource {
        let configuration = try EtcdSourceConfiguration.parse(
            url: "etcd://127.0.0.1:\(port)/viper",
            backoff: Self.rarely,
            requestTimeout: .seconds(3600),
            probeInterval: .seconds(3600)
        )
        return EtcdRemoteSource(configuration: configuration, logger: HTTPSourceHarness.logger)
    }

    /// An HTTP or etcd source of the server on `port`, and what to call once it stopped.
    private static func source(
        _ kind: String,
        port: Int
    ) throws -> (any RemoteSource, shutdown: @Sendable () async throws -> Void) {
        if kind == "http" { return Self.httpSource(port: port) }
        return (try Self.etcdSource(port: port), {})
    }

    /// Runs `sync` in a task of its own and gives what it threw (`nil`: it returned).
    private static func interruption(
        of sync: @escaping @Sendable () async throws(SyncInterruption) -> Void
    ) -> Task<SyncInterruption?, Never> {
        Task {
            do throws(SyncInterruption) {
                try await sync()
                return nil
            } catch {
                return error
            }
        }
    }

    /// Starts `source`, has its first attempt fail, asks for a sync whose attempt `server` holds, stops the source
    /// once the request arrived, and checks that the sync heard so and that the status recorded nothing of it.
    private static func stopDuringTheSyncsAttempt(_ source: any RemoteSource, server: HoldingHTTPServer) async throws {
        let status = SyncStatusRecorder(source: source.endpointDescription)
        let running = Task { await source.run(applying: { _ in .stored }, status: status) }
        try #require(await Eventually.wait { status.snapshot.state == .failing }, "the first attempt failed")
        let before = status.snapshot
        let sync = Self.interruption { () async throws(SyncInterruption) in try await source.syncNow() }
        try #require(await Eventually.wait { server.requests == 2 }, "the sync's request reached the server")
        running.cancel()
        await running.value
        #expect(await sync.value == .sourceStopped)
        #expect(status.snapshot.lastAttempt == before.lastAttempt, "the attempt cut short recorded no outcome")
        #expect(status.snapshot.lastError == before.lastError)
    }

    @Test("HTTP: a sync whose fetch is under way when the source stops hears that it did not finish")
    func httpFetchUnderWay() async throws {
        let server = try HoldingHTTPServer(answering: 1, with: Self.serverError)
        let (source, shutdown) = Self.httpSource(port: server.port)
        try await Self.stopDuringTheSyncsAttempt(source, server: server)
        try await shutdown()
    }

    @Test("etcd: a sync whose range read is under way when the source stops hears that it did not finish")
    func etcdRangeReadUnderWay() async throws {
        let server = try HoldingHTTPServer(answering: 1, with: Self.serverError)
        try await Self.stopDuringTheSyncsAttempt(try Self.etcdSource(port: server.port), server: server)
    }

    @Test(
        "a sync waiting behind the loop's own attempt, and one after the source stopped, hear that it stopped",
        arguments: ["http", "etcd"]
    )
    func waitingAndAfterStop(kind: String) async throws {
        // Every request is held: the loop's first attempt never ends, the sync waits for the one after it.
        let server = try HoldingHTTPServer(answering: 0, with: "")
        let (source, shutdown) = try Self.source(kind, port: server.port)
        let status = SyncStatusRecorder(source: source.endpointDescription)
        let running = Task { await source.run(applying: { _ in .stored }, status: status) }
        try #require(await Eventually.wait { server.requests == 1 }, "the loop's own attempt reached the server")
        let waiting = Self.interruption { () async throws(SyncInterruption) in try await source.syncNow() }
        running.cancel()
        await running.value
        #expect(await waiting.value == .sourceStopped)
        let after = Self.interruption { () async throws(SyncInterruption) in try await source.syncNow() }
        #expect(await after.value == .sourceStopped)
        #expect(status.snapshot.state == .starting, "no attempt ended")
        try await shutdown()
    }

    @Test("a sync whose own task is cancelled hears so, and the source keeps running", arguments: ["http", "etcd"])
    func callerCancelled(kind: String) async throws {
        let server = try HoldingHTTPServer(answering: 0, with: "")
        let (source, shutdown) = try Self.source(kind, port: server.port)
        let running = Task { await source.run(applying: { _ in .stored }, status: SyncStatusRecorder(source: "test")) }
        try #require(await Eventually.wait { server.requests == 1 }, "the loop's own attempt reached the server")
        let waiting = Self.interruption { () async throws(SyncInterruption) in try await source.syncNow() }
        waiting.cancel()
        #expect(await waiting.value == .cancelled)
        running.cancel()
        await running.value
        try await shutdown()
    }
}

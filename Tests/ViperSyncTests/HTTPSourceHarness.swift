import Logging
import Synchronization
import ViperSettings
import ViperSync

/// Runs an ``HTTPRemoteSource`` for the length of a test and records what it applies.
final class HTTPSourceHarness: Sendable {
    /// The snapshots applied so far, in order.
    var applied: [RemoteSnapshot] { self.log.withLock { $0 } }
    /// The status the source records.
    let status: SyncStatusRecorder
    private let log = Mutex<[RemoteSnapshot]>([])
    /// What applying a snapshot gives: set `.notStored` to play a full disk.
    let outcome = Mutex(RemoteApplyOutcome.stored)

    private init(status: SyncStatusRecorder) {
        self.status = status
    }

    /// Runs `source` in a child task while `body` runs, then cancels it and waits until `run` returned.
    static func run<Result: Sendable>(
        _ source: HTTPRemoteSource,
        body: (HTTPSourceHarness) async throws -> Result
    ) async throws -> Result {
        let harness = HTTPSourceHarness(status: SyncStatusRecorder(source: source.endpointDescription))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                await source.run(
                    applying: { snapshot in
                        harness.log.withLock { $0.append(snapshot) }
                        return harness.outcome.withLock { $0 }
                    },
                    status: harness.status
                )
            }
            defer { group.cancelAll() }
            return try await body(harness)
        }
    }

    /// Makes a client with the configuration's timeouts and a source, runs it while `body` runs, then stops the
    /// source and shuts the client down (also when `body` throws).
    static func run<Result: Sendable>(
        _ configuration: HTTPSourceConfiguration,
        logger: Logger = HTTPSourceHarness.logger,
        body: (HTTPRemoteSource, HTTPSourceHarness) async throws -> Result
    ) async throws -> Result {
        let client = HTTPRemoteSource.makeHTTPClient(configuration: configuration)
        let source = HTTPRemoteSource(
            configuration: configuration,
            httpClient: client,
            clock: ContinuousClock(),
            logger: logger
        )
        let result: Swift.Result<Result, any Error>
        do {
            result = .success(try await Self.run(source) { try await body(source, $0) })
        } catch {
            result = .failure(error)
        }
        try await client.shutdown()
        return try result.get()
    }

    /// Waits (up to `timeout`) until the status satisfies `condition`, and returns it.
    func status(
        within timeout: Duration = .seconds(60),
        where condition: (SyncStatus) -> Bool
    ) async throws -> SyncStatus {
        let deadline = ContinuousClock.now + timeout
        while true {
            let snapshot = self.status.snapshot
            if condition(snapshot) || ContinuousClock.now >= deadline { return snapshot }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// A logger for tests (warnings and above to stderr).
    static var logger: Logger {
        var logger = Logger(label: "viper.sync.http.test")
        logger.logLevel = .warning
        return logger
    }
}

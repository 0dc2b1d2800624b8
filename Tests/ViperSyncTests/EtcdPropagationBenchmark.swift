import AsyncHTTPClient
import Logging
import SettingsAPI
import Synchronization
import Testing
import ViperSettings

@testable import ViperSync

#if canImport(Glibc)
import Glibc
#endif

/// Measures (does not test) the lag from an etcd put to the snapshot applied by 1 and by 10 sources:
/// `VIPER_BENCH=1 swift test --filter EtcdPropagationBenchmark`, or `scripts/bench-sync.sh`. Prints p50/p99.
@Suite(
    .serialized,
    .enabled(if: getenv("VIPER_BENCH").map { String(cString: $0) } == "1", "set VIPER_BENCH=1 to measure"),
    .enabled(if: EtcdCluster.isAvailable, "needs /usr/bin/etcd")
)
struct EtcdPropagationBenchmark {
    /// Lags measured in the apply callbacks.
    final class Lags: Sendable {
        private struct State {
            var current = Int.min
            var start = ContinuousClock.now
            var lags: [Duration] = []
        }

        private let state = Mutex(State())

        /// Starts measuring put number `index`.
        func begin(_ index: Int) {
            self.state.withLock {
                $0.current = index
                $0.start = .now
            }
        }

        /// Called by a source: records the lag if `snapshot` shows the put being measured.
        func applied(_ snapshot: RemoteSnapshot) {
            let now = ContinuousClock.now
            self.state.withLock { state in
                if snapshot.modules["bench"]?.recommended["lag.value"] == .int(Int64(state.current)) {
                    state.lags.append(state.start.duration(to: now))
                }
            }
        }

        /// Every lag, sorted.
        var sorted: [Duration] { self.state.withLock { $0.lags.sorted() } }
    }

    @Test(arguments: [1, 10])
    func propagationLag(sources count: Int) async throws {
        let puts = Int(getenv("VIPER_BENCH_PUTS").map { String(cString: $0) } ?? "") ?? 200
        let cluster = try EtcdCluster(members: 1)
        try await cluster.start()
        let writer = EtcdTestClient(ports: cluster.clientPorts)
        try await writer.put("bench/bench/recommended/lag.value", "-1")
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
        let httpClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let lags = Lags()
        var logger = Logger(label: "etcd-bench")
        logger.logLevel = .warning
        let url = cluster.url(prefix: "bench")
        let sources = try (0..<count).map { _ in
            EtcdRemoteSource(
                configuration: try EtcdSourceConfiguration.parse(url: url),
                httpClient: httpClient,
                logger: logger
            )
        }
        let logs = sources.map { _ in EtcdSnapshotLog() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (source, log) in zip(sources, logs) {
                group.addTask {
                    await source.run(
                        applying: { snapshot in
                            lags.applied(snapshot)
                            log.record(snapshot)
                            return .stored
                        },
                        status: SyncStatusRecorder(source: source.endpointDescription)
                    )
                }
            }
            defer { group.cancelAll() }
            for log in logs {
                _ = try await log.wait(timeout: .seconds(10), "the initial range") {
                    $0.modules["bench"]?.recommended["lag.value"] == -1
                }
            }
            for index in 0..<puts {
                lags.begin(index)
                try await writer.put("bench/bench/recommended/lag.value", "\(index)")
                for log in logs {
                    _ = try await log.wait("put \(index)") {
                        $0.modules["bench"]?.recommended["lag.value"] == .int(Int64(index))
                    }
                }
            }
        }
        try await httpClient.shutdown()
        let sorted = lags.sorted
        func percentile(_ p: Double) -> String {
            let duration = sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
            let (seconds, attoseconds) = duration.components
            let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
            return String(Int((milliseconds * 100).rounded())).paddedMilliseconds
        }
        print(
            "BENCH etcd propagation: sources=\(count) puts=\(puts) samples=\(sorted.count) "
                + "p50=\(percentile(0.5)) ms p99=\(percentile(0.99)) ms max=\(percentile(1.0)) ms"
        )
    }
}

extension String {
    /// Hundredths of a millisecond, `"1234"`, as `"12.34"`.
    fileprivate var paddedMilliseconds: String {
        let digits = String(repeating: "0", count: max(0, 3 - self.count)) + self
        return "\(digits.dropLast(2)).\(digits.suffix(2))"
    }
}

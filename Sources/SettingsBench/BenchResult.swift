import Histogram

/// What a run measured: operations per second and latency percentiles, per operation and overall.
public struct BenchResult: Sendable {
    /// Figures of one kind of operation.
    public struct Figures: Sendable {
        /// Operations recorded.
        public var count: UInt64
        /// Replies that were errors.
        public var errors: Int
        /// Latency percentiles in microseconds.
        public var p50: Double
        public var p90: Double
        public var p99: Double
        public var p999: Double
        public var max: Double
        public var mean: Double
    }

    /// The workload that ran.
    public var workload: BenchWorkload
    /// How long operations were recorded, in seconds.
    public var seconds: Double
    /// Figures per operation that ran at least once.
    public var operations: [BenchOperation: Figures]
    /// Figures of all operations together.
    public var total: Figures

    init(workload: BenchWorkload, seconds: Double, workers: [BenchWorker]) {
        self.workload = workload
        self.seconds = seconds
        var all = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
        var allErrors = 0
        self.operations = [:]
        for operation in BenchOperation.allCases {
            var merged = Histogram<UInt64>(
                highestTrackableValue: 60_000_000_000,
                numberOfSignificantValueDigits: .three
            )
            var errors = 0
            for worker in workers {
                if let histogram = worker.latencies[operation] { merged.add(histogram) }
                errors += worker.errors[operation] ?? 0
            }
            all.add(merged)
            allErrors += errors
            if merged.totalCount > 0 {
                self.operations[operation] = Self.figures(merged, errors: errors)
            }
        }
        self.total = Self.figures(all, errors: allErrors)
    }

    /// Operations per second over the recorded time.
    public var operationsPerSecond: Double {
        self.seconds > 0 ? Double(self.total.count) / self.seconds : 0
    }

    private static func figures(_ histogram: Histogram<UInt64>, errors: Int) -> Figures {
        func micro(_ nanoseconds: UInt64) -> Double { Double(nanoseconds) / 1000 }
        return Figures(
            count: histogram.totalCount,
            errors: errors,
            p50: micro(histogram.valueAtPercentile(50)),
            p90: micro(histogram.valueAtPercentile(90)),
            p99: micro(histogram.valueAtPercentile(99)),
            p999: micro(histogram.valueAtPercentile(99.9)),
            max: micro(histogram.max),
            mean: histogram.totalCount > 0 ? histogram.mean / 1000 : 0
        )
    }
}

import Histogram

#if canImport(Glibc)
import Glibc
#endif

/// Runs a workload: connects every connection first, starts one thread per connection, lets them warm up,
/// records for the duration, stops them and merges what they recorded.
public struct BenchRunner: Sendable {
    private let workload: BenchWorkload

    /// A runner for `workload`.
    public init(workload: BenchWorkload) {
        self.workload = workload
    }

    /// Runs the workload; throws when a connection cannot be made or fails during the run.
    public func run() throws(BenchError) -> BenchResult {
        try self.workload.validate()
        let control = BenchControl()
        var workers: [BenchWorker] = []
        for index in 0..<self.workload.connections {
            workers.append(try BenchWorker(index: index, workload: self.workload, control: control))
        }
        var threads: [pthread_t] = []
        for worker in workers {
            var thread = pthread_t()
            let context = Unmanaged.passRetained(worker).toOpaque()
            let created = pthread_create(
                &thread,
                nil,
                { context in
                    let worker = Unmanaged<BenchWorker>.fromOpaque(context!).takeRetainedValue()
                    worker.run()
                    return nil
                },
                context
            )
            guard created == 0 else {
                Unmanaged<BenchWorker>.fromOpaque(context).release()
                control.stopping.store(true, ordering: .relaxed)
                for thread in threads { pthread_join(thread, nil) }
                throw .system("pthread_create", created)
            }
            threads.append(thread)
        }
        Self.sleep(self.workload.warmup)
        control.recording.store(true, ordering: .relaxed)
        let start = BenchWorker.now()
        Self.sleep(self.workload.duration)
        control.recording.store(false, ordering: .relaxed)
        let elapsed = BenchWorker.now() - start
        control.stopping.store(true, ordering: .relaxed)
        for thread in threads { pthread_join(thread, nil) }
        if let failure = workers.compactMap(\.failure).first { throw failure }
        return BenchResult(workload: self.workload, seconds: Double(elapsed) / 1e9, workers: workers)
    }

    private static func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR {
            request = remaining
        }
    }
}

import Histogram
import Synchronization
import ViperPOSIX

#if canImport(Glibc)
import Glibc
#endif

/// The flags every worker thread reads: whether operations are recorded yet, and whether to stop.
final class BenchControl: Sendable {
    let recording = Atomic<Bool>(false)
    let stopping = Atomic<Bool>(false)
}

/// One connection's closed loop on its own thread: pick an operation and a key, send, wait for the reply,
/// record the latency while recording is on.
final class BenchWorker: @unchecked Sendable {
    private let connection: BenchConnection
    private let workload: BenchWorkload
    private let control: BenchControl
    private var random: UInt64
    private var nextValue: Int
    /// Latencies in nanoseconds, per operation.
    private(set) var latencies: [BenchOperation: Histogram<UInt64>] = [:]
    /// Replies that were errors, per operation.
    private(set) var errors: [BenchOperation: Int] = [:]
    /// Why the loop stopped early, if it did.
    private(set) var failure: BenchError?

    init(index: Int, workload: BenchWorkload, control: BenchControl) throws(BenchError) {
        self.connection = try BenchConnection(path: workload.socketPath, wire: workload.wire)
        self.workload = workload
        self.control = control
        self.random = 0x9E37_79B9_7F4A_7C15 &* UInt64(index + 1)
        self.nextValue = index
        for operation in BenchOperation.allCases {
            self.latencies[operation] = Histogram(
                highestTrackableValue: 60_000_000_000,
                numberOfSignificantValueDigits: .three
            )
            self.errors[operation] = 0
        }
    }

    /// Runs the loop until the control says stop or the connection fails.
    func run() {
        let requests = self.prebuiltGets()
        while !self.control.stopping.load(ordering: .relaxed) {
            let draw = self.draw()
            let keyIndex = Int(draw % UInt64(self.workload.keys.count))
            let isSet = Int((draw >> 32) % 100) < self.workload.setPercent
            let operation: BenchOperation = isSet ? .set : .get
            let request: [UInt8]
            if isSet {
                self.nextValue += self.workload.connections
                let value = 1 + self.nextValue % self.workload.maximumValue
                request = self.workload.wire.request(.set, key: self.workload.keys[keyIndex], value: value)
            } else {
                request = requests[keyIndex]
            }
            let start = Self.now()
            let succeeded: Bool
            do {
                succeeded = try self.connection.roundTrip(request)
            } catch {
                self.failure = error
                return
            }
            let elapsed = Self.now() - start
            if self.control.recording.load(ordering: .relaxed) {
                _ = self.latencies[operation]!.record(elapsed)
                if !succeeded { self.errors[operation]! += 1 }
            }
        }
    }

    /// The get request of every key, built once so that a get costs the client no formatting.
    private func prebuiltGets() -> [[UInt8]] {
        self.workload.keys.map { self.workload.wire.request(.get, key: $0, value: 0) }
    }

    /// The next number of a xorshift generator: cheap and good enough to spread keys and operations.
    private func draw() -> UInt64 {
        self.random ^= self.random << 13
        self.random ^= self.random >> 7
        self.random ^= self.random << 17
        return self.random
    }

    /// The monotonic clock in nanoseconds.
    static func now() -> UInt64 {
        UInt64(MonotonicClock.nanoseconds)
    }
}

import Synchronization
import Testing

@testable import ViperIPC

/// Lines a peer can cause at will are bounded per kind and per window, and the drop is said in the log.
@Suite("Varlink log limiter")
struct VarlinkLogLimiterTests {
    /// A clock the test moves by hand.
    final class ManualClock: Sendable {
        private let instant = Mutex(ContinuousClock.now)
        var now: ContinuousClock.Instant { self.instant.withLock { $0 } }
        func advance(by duration: Duration) { self.instant.withLock { $0 += duration } }
    }

    @Test("three lines per window: the third says more are dropped, the next are dropped, the next window counts them")
    func window() {
        let clock = ManualClock()
        let limiter = VarlinkLogLimiter(linesPerWindow: 3, window: .seconds(10), now: { clock.now })
        #expect(limiter.admit(.protocolViolation) == [:])
        #expect(limiter.admit(.protocolViolation) == [:])
        #expect(limiter.admit(.protocolViolation)?["log_limit"] != nil)
        for _ in 0..<1000 { #expect(limiter.admit(.protocolViolation) == nil) }
        #expect(limiter.admit(.connectionRefused) == [:], "each kind is counted on its own")
        clock.advance(by: .seconds(9))
        #expect(limiter.admit(.protocolViolation) == nil)
        clock.advance(by: .seconds(1))
        let next = limiter.admit(.protocolViolation)
        #expect(next?["log_dropped"] == "1001 similar lines were not logged before this one")
        #expect(limiter.admit(.protocolViolation) == [:])
    }
}

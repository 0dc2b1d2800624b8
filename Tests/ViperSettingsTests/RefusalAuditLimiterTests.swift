import Synchronization
import Testing
import ViperSettings

/// Refused writes are audit entries, but a client cannot make the daemon log faster than 20 a second for its uid.
@Suite("Audit entries of refused writes are bounded per uid")
struct RefusalAuditLimiterTests {
    /// A time source the test moves by hand.
    final class Time: Sendable {
        let start = ContinuousClock.now
        let offset = Mutex(Duration.zero)
        func advance(by duration: Duration) { self.offset.withLock { $0 += duration } }
        var now: ContinuousClock.Instant { self.start + self.offset.withLock { $0 } }
    }

    @Test("20 a second for one uid, the rest counted and said by the next entry; other uids are not held back")
    func burstPerUID() {
        let time = Time()
        let limiter = RefusalAuditLimiter(now: { time.now })
        let flood = (0..<25).map { _ in limiter.admit(uid: 65534) }
        #expect(flood.prefix(20).allSatisfy { $0 == 0 })
        #expect(flood.suffix(5).allSatisfy { $0 == nil })
        #expect(limiter.admit(uid: 0) == 0, "root's refusal (or anyone else's) is still logged")
        time.advance(by: .milliseconds(999))
        #expect(limiter.admit(uid: 65534) == nil)
        time.advance(by: .milliseconds(1))
        #expect(limiter.admit(uid: 65534) == 6, "the first entry of the next second says how many were left out")
        #expect(limiter.admit(uid: 65534) == 0)
    }
}

import Testing

@testable import ViperIPC

/// The connection limits: per uid, in total, and the few connections kept for root once others filled the total.
@Suite("VarlinkConnectionLimiter")
struct VarlinkConnectionLimiterTests {
    @Test("others filling max-connections leave root its reserved connections; root's per-uid maximum still holds")
    func rootKeepsAReserve() {
        let limiter = VarlinkConnectionLimiter(maximumConnections: 10, maximumConnectionsPerUID: 9, reservedForRoot: 8)
        for _ in 0..<9 { #expect(limiter.acquire(uid: 1000) == nil) }
        #expect(limiter.acquire(uid: 1000) == .tooManyConnectionsForUID)
        #expect(limiter.acquire(uid: 1001) == nil)
        // The total is reached: another user is refused, root is not, up to the reserve.
        #expect(limiter.acquire(uid: 1002) == .tooManyConnections)
        for _ in 0..<8 { #expect(limiter.acquire(uid: 0) == nil) }
        #expect(limiter.acquire(uid: 0) == .tooManyConnections)
        // What root holds counts in the total: a user that leaves frees a place for root first, not for others.
        limiter.release(uid: 1001)
        #expect(limiter.acquire(uid: 1002) == .tooManyConnections)
        for _ in 0..<8 { limiter.release(uid: 0) }
        #expect(limiter.acquire(uid: 1002) == nil)
    }

    @Test("root's own per-uid maximum is not raised by the reserve")
    func rootPerUIDMaximum() {
        let limiter = VarlinkConnectionLimiter(maximumConnections: 100, maximumConnectionsPerUID: 3, reservedForRoot: 8)
        for _ in 0..<3 { #expect(limiter.acquire(uid: 0) == nil) }
        #expect(limiter.acquire(uid: 0) == .tooManyConnectionsForUID)
    }
}

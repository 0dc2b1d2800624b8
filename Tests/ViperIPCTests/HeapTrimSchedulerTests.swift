import NIOCore
import NIOEmbedded
import Synchronization
import Testing

@testable import ViperIPC

/// The heap is trimmed a moment after connections end, once for a burst of them, and never while none ends.
@Suite("Trimming the heap after connections end")
struct HeapTrimSchedulerTests {
    @Test("nothing is scheduled while no connection ends; a burst of ends is one trim, a moment later")
    func oneTrimPerBurst() {
        let loop = EmbeddedEventLoop()
        let trims = Atomic(0)
        let scheduler = HeapTrimScheduler(delay: .seconds(2)) { trims.add(1, ordering: .relaxed) }
        loop.advanceTime(by: .seconds(10))
        #expect(trims.load(ordering: .relaxed) == 0)
        for _ in 0..<5 { scheduler.connectionEnded(on: loop) }
        loop.advanceTime(by: .milliseconds(1999))
        #expect(trims.load(ordering: .relaxed) == 0, "not before the delay")
        loop.advanceTime(by: .milliseconds(1))
        #expect(trims.load(ordering: .relaxed) == 1, "one trim for the five")
        loop.advanceTime(by: .seconds(10))
        #expect(trims.load(ordering: .relaxed) == 1, "none while no connection ends")
        scheduler.connectionEnded(on: loop)
        loop.advanceTime(by: .seconds(2))
        #expect(trims.load(ordering: .relaxed) == 2, "the next end schedules the next trim")
    }
}

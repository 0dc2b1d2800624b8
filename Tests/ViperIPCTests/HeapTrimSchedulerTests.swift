import Foundation
import NIOCore
import NIOEmbedded
import NIOPosix
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

/// The code pages are dropped on a thread of the blocking pool, whose way back to its wait touches little code.
@Suite("Dropping the code pages off the caller's thread")
struct DropCodePagesTests {
    @Test("the drop runs on a thread of the pool, not the caller's; not at all once the pool has stopped")
    func runsOnThePool() async throws {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        let caller = pthread_self()
        let ranOn = Mutex<(thread: pthread_t, name: String)?>(nil)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            HeapTrimScheduler.dropCodePages(on: pool) {
                let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
                ranOn.withLock { $0 = (pthread_self(), name) }
                done.resume()
            }
        }
        let ran = try #require(ranOn.withLock { $0 })
        #expect(pthread_equal(ran.thread, caller) == 0, "not on the caller's thread")
        #expect(ran.name.hasPrefix("TP-"), "a thread of the pool: \(ran.name)")
        try await pool.shutdownGracefully()
        let ranAfter = Atomic(false)
        HeapTrimScheduler.dropCodePages(on: pool) { ranAfter.store(true, ordering: .relaxed) }
        let ranAfterStop = ranAfter.load(ordering: .relaxed)
        #expect(!ranAfterStop)
    }
}

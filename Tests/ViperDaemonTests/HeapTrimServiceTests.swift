import Synchronization
import Testing
import ViperTestSupport

@testable import ViperDaemon

/// The heap is trimmed a moment after connections end, once for a burst of them, and never while none ends.
@Suite("Trimming the heap after connections end")
struct HeapTrimServiceTests {
    @Test("no trim and no timer while no connection ends; one trim after a burst, a moment later")
    func trimsAfterConnectionsEnd() async throws {
        let (ends, ended) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let clock = ManualClock()
        let trims = Atomic(0)
        let service = HeapTrimService(connectionEnds: ends, delay: .seconds(2), clock: clock) { _ in
            trims.add(1, ordering: .relaxed)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await service.run() }
            defer { group.cancelAll() }
            // Idle: nothing waits on the clock.
            try #require(await Eventually.wait { clock.pendingSleeps.isEmpty })
            #expect(trims.load(ordering: .relaxed) == 0)
            // A burst of ends: one wait of the delay, then one trim.
            for _ in 0..<5 { ended.yield() }
            try #require(await Eventually.wait { clock.pendingSleeps == [.seconds(2)] })
            clock.advance(by: .seconds(2))
            try #require(await Eventually.wait { trims.load(ordering: .relaxed) == 1 })
            try #require(await Eventually.wait { clock.pendingSleeps.isEmpty })
            // Ends while it waits are trimmed for once more, after.
            ended.yield()
            try #require(await Eventually.wait { clock.pendingSleeps == [.seconds(2)] })
            ended.yield()
            ended.yield()
            clock.advance(by: .seconds(2))
            try #require(await Eventually.wait { clock.pendingSleeps == [.seconds(2)] })
            clock.advance(by: .seconds(2))
            try #require(await Eventually.wait { trims.load(ordering: .relaxed) == 3 })
            try #require(await Eventually.wait { clock.pendingSleeps.isEmpty })
            #expect(trims.load(ordering: .relaxed) == 3)
        }
    }
}

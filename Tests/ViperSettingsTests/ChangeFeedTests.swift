import Synchronization
import Testing
import ViperSettings

/// The change feed on its own: what a subscription reads, and when a waiting one is woken.
@Suite("Change feed: deliveries and wake-ups")
struct ChangeFeedTests {
    /// A schedule that keeps the wake-ups until the test runs them, as an event loop queues a job.
    final class HeldWakeUps: Sendable {
        private let held = Mutex<[@Sendable () -> Void]>([])

        var count: Int { self.held.withLock { $0.count } }

        func schedule(_ wake: @escaping @Sendable () -> Void) {
            self.held.withLock { $0.append(wake) }
        }

        func runAll() {
            let wakes = self.held.withLock { held in
                defer { held = [] }
                return held
            }
            for wake in wakes { wake() }
        }
    }

    /// Whether the subscription's task got its delivery.
    final class Flag: Sendable {
        private let raised = Atomic(false)
        var isRaised: Bool { self.raised.load(ordering: .sequentiallyConsistent) }
        func raise() { self.raised.store(true, ordering: .sequentiallyConsistent) }
    }

    static func record(_ revision: Int64) -> ChangeRecord {
        ChangeRecord(
            revision: revision,
            cause: .client(uid: 0, pid: 1),
            changes: [SettingChange(path: "a.b", old: .int(0), oldLayer: nil, new: .int(revision), layer: .local)]
        )
    }

    @Test("a waiting subscription is woken through the schedule, after the publisher went on, with its records")
    func wakeUpIsScheduled() async throws {
        let wakeUps = HeldWakeUps()
        let feed = ChangeFeed(schedule: { wakeUps.schedule($0) })
        let subscription = feed.subscribe(modules: ["network"])
        let woken = Flag()
        try await withThrowingTaskGroup(of: ChangeFeed.Delivery?.self) { group in
            group.addTask {
                let delivery = await subscription.next()
                woken.raise()
                return delivery
            }
            while feed.waitingCount == 0 { await Task.yield() }
            feed.publish(module: "network", records: [Self.record(1)])
            feed.publish(module: "network", records: [Self.record(2)])
            // Published twice, woken once, and not before the schedule runs the wake-up.
            #expect(wakeUps.count == 1)
            #expect(feed.waitingCount == 0)
            #expect(!woken.isRaised)
            wakeUps.runAll()
            let first = try await group.next()!
            #expect(first == .records([.init(module: "network", record: Self.record(1))]))
        }
        // The second publication waited in the backlog: read at once, no wake-up needed.
        #expect(await subscription.next() == .records([.init(module: "network", record: Self.record(2))]))
        #expect(wakeUps.count == 0)
    }

    @Test("records of other modules, and publications nobody waits for, schedule nothing")
    func nothingToWake() async {
        let wakeUps = HeldWakeUps()
        let feed = ChangeFeed(schedule: { wakeUps.schedule($0) })
        let subscription = feed.subscribe(modules: ["network"])
        feed.publish(module: "display", records: [Self.record(1)])
        feed.publish(module: "network", records: [Self.record(2)])
        #expect(wakeUps.count == 0)
        #expect(await subscription.next() == .records([.init(module: "network", record: Self.record(2))]))
    }
}

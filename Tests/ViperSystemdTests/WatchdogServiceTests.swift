import Logging
import ServiceLifecycle
import Testing
import ViperSystemd
import ViperTestSupport

extension ProcessEnvironmentTests {
    @Suite("WatchdogService", .timeLimit(.minutes(1)))
    struct WatchdogServiceTests {
        static let logger = Logger(label: "watchdog-test") { _ in SwiftLogNoOpLogHandler() }

        @Test("pings every interval on a real clock until cancelled, then returns")
        func pingsOnARealClock() async throws {
            try await Self.withNotifySocket { socket in
                let service = WatchdogService(
                    notifier: SystemdNotifier(),
                    interval: .milliseconds(20),
                    clock: ContinuousClock(),
                    logger: Self.logger
                )
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await service.run() }
                    for _ in 0..<3 {
                        #expect(await socket.next(timeout: .seconds(10)) == "WATCHDOG=1")
                    }
                    group.cancelAll()
                    // run() returns, without throwing, once cancelled.
                    try await group.waitForAll()
                }
            }
        }

        @Test("returns when its ServiceGroup shuts down gracefully")
        func returnsOnGracefulShutdown() async throws {
            try await Self.withNotifySocket { socket in
                let service = WatchdogService(
                    notifier: SystemdNotifier(),
                    interval: .seconds(3600),
                    clock: ContinuousClock(),
                    logger: Self.logger
                )
                let group = ServiceGroup(services: [service], logger: Self.logger)
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask { try await group.run() }
                    // The first ping goes out at once; the next would be an hour later.
                    #expect(await socket.next(timeout: .seconds(10)) == "WATCHDOG=1")
                    await group.triggerGracefulShutdown()
                    try await tasks.waitForAll()
                }
            }
        }

        @Test("sends no ping while isHealthy says false, and pings again once it says true")
        func skipsPingsWhileUnhealthy() async throws {
            try await Self.withNotifySocket { socket in
                let health = HealthScript([true, false, false, true], then: false)
                let service = WatchdogService(
                    notifier: SystemdNotifier(),
                    interval: .milliseconds(5),
                    clock: ContinuousClock(),
                    logger: Self.logger,
                    isHealthy: health.isHealthy
                )
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await service.run() }
                    // Each check comes after the previous one's ping was queued on the socket, so by the sixth
                    // check the socket holds exactly the pings of the checks that said true: the first and fourth.
                    await health.waitForCalls(6)
                    #expect(socket.drain() == ["WATCHDOG=1", "WATCHDOG=1"])
                    group.cancelAll()
                    try await group.waitForAll()
                }
            }
        }

        @Test("stopPingingAfter (the test-only hang) stops the pings for good while the service keeps running")
        func stopPingingAfterSimulatesAHang() async throws {
            try await Self.withNotifySocket { socket in
                let clock = SteppingClock(sleeps: 8)
                let health = HealthScript([], then: true)
                let service = WatchdogService(
                    notifier: SystemdNotifier(),
                    interval: .seconds(10),
                    clock: clock,
                    logger: Self.logger,
                    stopPingingAfter: .seconds(35),
                    isHealthy: health.isHealthy
                )
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await service.run() }
                    // Eight intervals pass at once: pings at 0, 10, 20 and 30 s, none from 40 to 80 s.
                    for await _ in clock.exhausted {}
                    #expect(socket.drain() == Array(repeating: "WATCHDOG=1", count: 4))
                    #expect(clock.now.offset == .seconds(80))
                    // The hang skips the health check too.
                    #expect(health.callCount == 4)
                    group.cancelAll()
                    try await group.waitForAll()
                }
            }
        }

        /// Runs `body` with `NOTIFY_SOCKET` naming a fresh notification socket.
        static func withNotifySocket(_ body: (NotifySocket) async throws -> Void) async throws {
            let socket = try NotifySocket()
            try await ProcessEnvironment.with(["NOTIFY_SOCKET": socket.path]) {
                try await body(socket)
            }
        }
    }
}

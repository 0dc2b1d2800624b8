import Testing
import ViperSystemd

#if canImport(Glibc)
import Glibc
import ViperTestSupport
#endif

extension ProcessEnvironmentTests {
    @Suite("SystemdNotifier")
    struct SystemdNotifierTests {
        @Test("without NOTIFY_SOCKET nothing is sent and isEnabled is false")
        func disabledWithoutNotifySocket() async {
            await ProcessEnvironment.with(["NOTIFY_SOCKET": nil]) {
                let notifier = SystemdNotifier()
                #expect(!notifier.isEnabled)
                #expect(!notifier.ready(status: "ready"))
                #expect(!notifier.watchdog())
            }
        }

        @Test("ready sends READY=1 with the status on one line")
        func ready() async throws {
            let messages = try await Self.notifications { notifier in
                #expect(notifier.isEnabled)
                #expect(notifier.ready(status: "serving 3 modules,\n42 keys"))
            }
            #expect(messages == ["READY=1\nSTATUS=serving 3 modules, 42 keys"])
        }

        @Test("status sends STATUS= alone")
        func status() async throws {
            let messages = try await Self.notifications { notifier in
                notifier.status("syncing")
            }
            #expect(messages == ["STATUS=syncing"])
        }

        @Test("reloading sends RELOADING=1 with the current CLOCK_MONOTONIC time in microseconds")
        func reloading() async throws {
            var before = timespec()
            var after = timespec()
            let messages = try await Self.notifications { notifier in
                clock_gettime(CLOCK_MONOTONIC, &before)
                notifier.reloading(status: "reloading schemas")
                clock_gettime(CLOCK_MONOTONIC, &after)
            }
            let lines = try #require(messages.first).split(separator: "\n").map(String.init)
            #expect(messages.count == 1)
            #expect(lines.count == 3)
            #expect(lines.first == "RELOADING=1")
            #expect(lines.last == "STATUS=reloading schemas")
            let stamp = try #require(lines.first { $0.hasPrefix("MONOTONIC_USEC=") }?.dropFirst(15))
            let microseconds = try #require(UInt64(stamp))
            #expect(Self.microseconds(before)...Self.microseconds(after) ~= microseconds)
        }

        @Test("stopping sends STOPPING=1 and the status")
        func stopping() async throws {
            let messages = try await Self.notifications { notifier in
                notifier.stopping(status: "finishing calls in progress")
            }
            #expect(messages == ["STOPPING=1\nSTATUS=finishing calls in progress"])
        }

        @Test("watchdog sends WATCHDOG=1, and NOTIFY_SOCKET stays set for the next ping")
        func watchdog() async throws {
            let messages = try await Self.notifications { notifier in
                #expect(notifier.watchdog())
                #expect(notifier.watchdog())
                #expect(ProcessEnvironment.value("NOTIFY_SOCKET") != nil)
            }
            #expect(messages == ["WATCHDOG=1", "WATCHDOG=1"])
        }

        @Test("a NOTIFY_SOCKET nobody listens on makes sending fail, not crash")
        func unreachableSocket() async {
            await ProcessEnvironment.with(["NOTIFY_SOCKET": "/nonexistent/viper-notify.sock"]) {
                #expect(!SystemdNotifier().ready(status: "ready"))
            }
        }

        @Test("watchdogInterval is WATCHDOG_USEC when WATCHDOG_PID is this process")
        func watchdogIntervalForThisProcess() async {
            await ProcessEnvironment.with(["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(getpid())"]) {
                #expect(SystemdNotifier.watchdogInterval() == .seconds(30))
            }
        }

        @Test(
            "watchdogInterval is nil without WATCHDOG_USEC, for another process, or when malformed",
            arguments: [
                ["WATCHDOG_USEC": nil, "WATCHDOG_PID": nil],
                ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"],
                ["WATCHDOG_USEC": "soon", "WATCHDOG_PID": "\(getpid())"],
            ] as [[String: String?]]
        )
        func watchdogIntervalOff(environment: [String: String?]) async {
            await ProcessEnvironment.with(environment) {
                #expect(SystemdNotifier.watchdogInterval() == nil)
            }
        }

        /// The notifications `body` sends to a fresh notification socket.
        static func notifications(
            _ body: (SystemdNotifier) async throws -> Void
        ) async throws -> [String] {
            let socket = try NotifySocket()
            return try await ProcessEnvironment.with(["NOTIFY_SOCKET": socket.path]) {
                try await body(SystemdNotifier())
                // sd_notify's send returns once the datagram is queued on the socket: all are there now.
                return socket.drain()
            }
        }

        static func microseconds(_ time: timespec) -> UInt64 {
            UInt64(time.tv_sec) * 1_000_000 + UInt64(time.tv_nsec) / 1_000
        }
    }
}

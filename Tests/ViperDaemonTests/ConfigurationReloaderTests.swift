import Logging
import Synchronization
import Testing
import ViperTestSupport

@testable import ViperDaemon

/// What a reload (SIGHUP) does with the configuration, and the line it ends with.
@Suite("Reloading the configuration: what is applied, what is kept, what is said")
struct ConfigurationReloaderTests {
    /// A stand-in for re-reading the flags and the file: returns the configuration set last, or throws.
    final class Source: Sendable {
        let next = Mutex<Result<DaemonConfiguration, ConfigurationError>>(.success(ConfigurationReloaderTests.started))

        func read() throws -> DaemonConfiguration { try self.next.withLock { $0 }.get() }
    }

    static let started = DaemonConfiguration(modulesDirectory: "/m1", stateDirectory: "/s", socketPath: "/run/s")

    @Test("a configuration with an error is logged and keeps the one in force: that of the last good reload")
    func errorKeepsTheConfigurationInForce() {
        let source = Source()
        let log = LogRecorder()
        let reloader = ConfigurationReloader(started: Self.started, read: { try source.read() }, logger: log.logger)
        var good = Self.started
        good.modulesDirectory = "/m2"
        good.maximumValueSize = 100
        source.next.withLock { $0 = .success(good) }
        #expect(reloader.reload() == nil)
        #expect(reloader.current.modulesDirectory == "/m2")

        source.next.withLock { $0 = .failure(ConfigurationError("/etc/x.conf: max-connections must be …")) }
        #expect(reloader.reload() != nil)
        #expect(reloader.current.modulesDirectory == "/m2", "not the directory the daemon started with")
        #expect(reloader.current.maximumValueSize == 100)
        #expect(
            log.messages(at: .error)
                == ["configuration not reloaded, keeping the current one: /etc/x.conf: max-connections must be …"]
        )
    }

    @Test("a reload applies modules-dir and max-value-size only, and warns about the keys that need a restart")
    func appliesOnlyTheReloadableKeys() {
        let source = Source()
        let log = LogRecorder()
        let reloader = ConfigurationReloader(started: Self.started, read: { try source.read() }, logger: log.logger)
        var next = Self.started
        next.modulesDirectory = "/m3"
        next.socketPath = "/run/other"
        source.next.withLock { $0 = .success(next) }
        #expect(reloader.reload() == nil)
        #expect(reloader.current.modulesDirectory == "/m3")
        #expect(reloader.current.socketPath == "/run/s")
        #expect(log.messages(at: .warning).count == 1)
        #expect(log.messages(at: .warning).first?.hasPrefix("socket changed in the configuration") == true)
    }

    @Test(
        "the reload's last line says what was reloaded and what was not, never just \"reloaded\"",
        arguments: [
            (true, true, "reloaded the configuration and the schemas: serving 5 modules", Logger.Level.notice),
            (false, true, "reloaded the schemas; the configuration was not (see above): serving 5 modules", .warning),
            (true, false, "reloaded the configuration; the schemas were not (see above): serving 5 modules", .warning),
            (
                false, false,
                "reloaded nothing: neither the configuration nor the schemas (see above): serving 5 modules",
                .warning
            ),
        ]
    )
    func summary(configuration: Bool, schemas: Bool, line: String, level: Logger.Level) {
        let outcome = ReloadOutcome(configurationReloaded: configuration, schemasReloaded: schemas)
        #expect(outcome.summary(status: "serving 5 modules") == line)
        #expect(outcome.level == level)
    }

    @Test("a reload that rejected a schema file says so, at warning: it never says only 'reloaded'")
    func summaryWithRejectedFile() {
        let outcome = ReloadOutcome(configurationReloaded: true, schemasReloaded: true, rejectedSchemaFiles: 1)
        #expect(
            outcome.summary(status: "S")
                == "reloaded the configuration and the schemas, but 1 schema file was rejected (see above): S"
        )
        #expect(outcome.level == .warning)
    }
}

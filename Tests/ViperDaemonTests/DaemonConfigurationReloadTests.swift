import Testing
import ViperDaemon

@Suite("Reloading the configuration")
struct DaemonConfigurationReloadTests {
    @Test("a reload names the changed keys it cannot apply, and not those it applies")
    func keysNeedingRestart() {
        let started = DaemonConfiguration(modulesDirectory: "/m", stateDirectory: "/s", socketPath: "/run/s.sock")
        var next = started
        #expect(started.keysNeedingRestart(toBecome: next).isEmpty)
        next.modulesDirectory = "/m2"
        next.maximumValueSize = 100
        #expect(started.keysNeedingRestart(toBecome: next).isEmpty)
        next.maximumMessageSize = 2048
        next.idleTimeout = .seconds(3)
        next.remote = "https://fleet.example/settings.json"
        next.logLevel = .debug
        #expect(
            started.keysNeedingRestart(toBecome: next) == ["log-level", "max-message-size", "idle-timeout", "remote"]
        )
        next.idleTimeout = nil
        #expect(started.keysNeedingRestart(toBecome: next).contains("idle-timeout"))
    }
}

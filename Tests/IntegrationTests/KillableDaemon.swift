import Foundation
import Glibc
import ViperTestSupport

/// The real `viper-settingsd` on a state directory that outlives it: started, waited on until its socket answers,
/// and killed with SIGKILL, as a crash.
final class KillableDaemon: @unchecked Sendable {
    let root: String
    let stateDirectory: String
    let modulesDirectory: String
    let socketPath: String
    private var process: Process?

    init(root: String) {
        self.root = root
        self.stateDirectory = "\(root)/state"
        self.modulesDirectory = "\(root)/modules"
        self.socketPath = "\(root)/run/io.viper.settings"
    }

    deinit {
        self.kill()
    }

    /// Starts the daemon and returns once `settingsctl modules` succeeds (within 60 s).
    func start() throws {
        let process = Process()
        process.executableURL = DaemonHarness.binDirectory.appendingPathComponent("viper-settingsd")
        process.arguments = [
            "--config", DaemonHarness.packageRoot.appendingPathComponent("config/viper-settingsd.conf").path,
            "--state-dir", self.stateDirectory, "--modules-dir", self.modulesDirectory, "--socket", self.socketPath,
            "--log-level", "warning",
        ]
        let log = FileHandle(forUpdatingAtPath: "\(self.root)/daemon.log") ?? FileHandle.nullDevice
        log.seekToEndOfFile()
        process.standardError = log
        process.standardOutput = log
        try process.runAlone()
        self.process = process
        try DaemonHarness.waitUntilServing(process, probe: { self.ctl(["modules"]) }, log: { self.log })
    }

    /// SIGKILL, then waits for the process to be gone.
    func kill() {
        guard let process = self.process else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    var log: String { (try? String(contentsOfFile: "\(self.root)/daemon.log", encoding: .utf8)) ?? "" }

    /// Runs settingsctl against the daemon.
    func ctl(_ arguments: [String]) -> CommandResult {
        DaemonHarness.run(
            [DaemonHarness.binDirectory.appendingPathComponent("settingsctl").path, "--socket", self.socketPath]
                + arguments
        )
    }
}

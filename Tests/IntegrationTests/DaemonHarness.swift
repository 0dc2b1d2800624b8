import Foundation
import Testing
import ViperTestSupport

/// Runs the real `viper-settingsd` on a temporary state directory and socket, and `settingsctl` against it.
final class DaemonHarness: @unchecked Sendable {
    let root: URL
    let stateDirectory: URL
    let socketPath: String
    let binDirectory: URL
    private var process: Process?
    private var logFile: URL { self.root.appendingPathComponent("daemon.log") }

    /// The package's root folder, found from this file.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Where the built executables are: $VIPER_BIN_DIR, else beside the test bundle.
    static var binDirectory: URL {
        if let explicit = ProcessInfo.processInfo.environment["VIPER_BIN_DIR"] {
            return URL(fileURLWithPath: explicit)
        }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = executable.deletingLastPathComponent()
        while directory.path != "/"
            && !FileManager.default.fileExists(
                atPath: directory.appendingPathComponent("viper-settingsd").path
            )
        {
            directory = directory.deletingLastPathComponent()
        }
        return directory
    }

    init() throws {
        self.root = FileManager.default.temporaryDirectory.appendingPathComponent("viper-it-\(UUID().uuidString)")
        self.stateDirectory = self.root.appendingPathComponent("state")
        self.socketPath = self.root.appendingPathComponent("run/io.viper.settings").path
        self.binDirectory = Self.binDirectory
        try FileManager.default.createDirectory(at: self.root, withIntermediateDirectories: true)
    }

    deinit {
        self.process?.terminate()
        self.process?.waitUntilExit()
        try? FileManager.default.removeItem(at: self.root)
    }

    /// Starts the daemon with the bundled configuration and waits until it answers.
    func start(
        extraArguments: [String] = [],
        environment: [String: String] = [:],
        launcher: [String] = [],
        waitUntilServing: Bool = true
    ) throws {
        let process = Process()
        let daemon = self.binDirectory.appendingPathComponent("viper-settingsd").path
        let command =
            launcher + [
                daemon, "--config", Self.packageRoot.appendingPathComponent("config/viper-settingsd.conf").path,
                "--state-dir", self.stateDirectory.path, "--socket", self.socketPath,
            ] + extraArguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = ProcessEnvironment.forChild(environment)
        _ = FileManager.default.createFile(atPath: self.logFile.path, contents: nil)
        let log = try FileHandle(forWritingTo: self.logFile)
        log.seekToEndOfFile()
        process.standardError = log
        process.standardOutput = log
        try process.runAlone()
        self.process = process
        guard waitUntilServing else { return }
        try Self.waitUntilServing(process, probe: { self.ctl(["modules"]) }, log: { self.log })
    }

    /// Waits (up to a minute: a loaded machine is slow) until `probe` succeeds, or throws with the daemon's `log`
    /// when it never does or the daemon exits first.
    static func waitUntilServing(
        _ process: Process,
        probe: () -> CommandResult,
        log: () -> String
    ) throws {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if probe().status == 0 { return }
            guard process.isRunning else { break }
            usleep(20_000)
        }
        throw HarnessError("viper-settingsd did not start; its log:\n\(log())")
    }

    /// Sends a signal to the daemon.
    func signal(_ number: Int32) {
        if let process = self.process { kill(process.processIdentifier, number) }
    }

    /// Stops the daemon with SIGTERM and returns its exit status.
    @discardableResult
    func stop() -> Int32 {
        guard let process = self.process else { return -1 }
        process.terminate()
        process.waitUntilExit()
        self.process = nil
        return process.terminationStatus
    }

    /// Stops the daemon with SIGTERM and returns its exit status, or `nil` when it did not exit within `seconds`
    /// (it is killed then).
    func stop(within seconds: TimeInterval) -> Int32? {
        guard let process = self.process else { return -1 }
        process.terminate()
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        let stopped = !process.isRunning
        if !stopped { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        self.process = nil
        return stopped ? process.terminationStatus : nil
    }

    /// What the daemon logged so far.
    /// The state directory's history token (`STATE/history`), which begins every cursor the daemon gives out; empty
    /// when there is none.
    var history: String {
        let text =
            (try? String(contentsOf: self.stateDirectory.appendingPathComponent("history"), encoding: .utf8)) ?? ""
        return text.trimmingCharacters(in: .newlines)
    }

    var log: String { (try? String(contentsOf: self.logFile, encoding: .utf8)) ?? "" }

    /// Runs settingsctl against the daemon and returns its exit status and output.
    func ctl(_ arguments: [String], socket: String? = nil, asUser uid: UInt32? = nil) -> CommandResult {
        var command = [
            self.binDirectory.appendingPathComponent("settingsctl").path, "--socket", socket ?? self.socketPath,
        ]
        command += arguments
        if let uid {
            command = ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"] + command
        }
        return Self.run(command)
    }

    static func isTextFileBusy(_ error: NSError) -> Bool {
        let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
        return (error.domain == NSPOSIXErrorDomain && error.code == Int(ETXTBSY))
            || (underlying?.domain == NSPOSIXErrorDomain && underlying?.code == Int(ETXTBSY))
    }

    /// Runs `command` to its end and returns its exit status and output. The output goes to files, not pipes, so a
    /// command that writes much to both streams cannot block on a full pipe.
    static func run(_ command: [String], environment: [String: String]? = nil) -> CommandResult {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("viper-run-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            let outURL = scratch.appendingPathComponent("stdout")
            let errURL = scratch.appendingPathComponent("stderr")
            // A copied executable is "busy" (ETXTBSY) while a process forked by a parallel test still holds the
            // copy's write descriptor; that passes once the child has exec'd, so try again with a new Process.
            var attempts = 0
            while true {
                _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
                _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
                let out = try FileHandle(forWritingTo: outURL)
                let err = try FileHandle(forWritingTo: errURL)
                defer {
                    try? out.close()
                    try? err.close()
                }
                let process = Process()
                process.executableURL = URL(fileURLWithPath: command[0])
                process.arguments = Array(command.dropFirst())
                if let environment { process.environment = environment }
                process.standardInput = FileHandle.nullDevice
                process.standardOutput = out
                process.standardError = err
                do {
                    try process.runAlone()
                } catch let error as NSError where Self.isTextFileBusy(error) && attempts < 200 {
                    attempts += 1
                    usleep(10_000)
                    continue
                }
                process.waitUntilExit()
                return CommandResult(
                    status: process.terminationStatus,
                    stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
                    stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
                )
            }
        } catch {
            return CommandResult(status: -1, stdout: "", stderr: "\(error)")
        }
    }
}

struct CommandResult: CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String

    var description: String { "exit \(self.status)\nstdout: \(self.stdout)\nstderr: \(self.stderr)" }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

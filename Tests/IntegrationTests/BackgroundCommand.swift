import Foundation
import ViperTestSupport

/// A command that runs beside a test, such as `settingsctl watch`: its output goes to files the test reads while it
/// runs, waiting on what it printed, never on time alone.
final class BackgroundCommand {
    private let process = Process()
    private let folder: URL
    private let out: FileHandle
    private let err: FileHandle

    /// Starts `command` (the executable's path, then its arguments), with `environment` added to the test's own.
    init(_ command: [String], environment: [String: String] = [:]) throws {
        self.folder = FileManager.default.temporaryDirectory.appendingPathComponent("viper-bg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: self.folder, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: self.folder.appendingPathComponent("stdout").path, contents: nil)
        _ = FileManager.default.createFile(atPath: self.folder.appendingPathComponent("stderr").path, contents: nil)
        self.out = try FileHandle(forWritingTo: self.folder.appendingPathComponent("stdout"))
        self.err = try FileHandle(forWritingTo: self.folder.appendingPathComponent("stderr"))
        self.process.executableURL = URL(fileURLWithPath: command[0])
        self.process.arguments = Array(command.dropFirst())
        if !environment.isEmpty {
            self.process.environment = ProcessEnvironment.forChild(environment)
        }
        self.process.standardInput = FileHandle.nullDevice
        self.process.standardOutput = self.out
        self.process.standardError = self.err
        try self.process.runAlone()
    }

    deinit {
        self.stop()
        try? self.out.close()
        try? self.err.close()
        try? FileManager.default.removeItem(at: self.folder)
    }

    /// What it printed on standard output so far.
    var stdout: String { self.read("stdout") }
    /// What it printed on standard error so far.
    var stderr: String { self.read("stderr") }
    /// The complete lines of standard output so far.
    var lines: [String] {
        let text = self.stdout
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }
    var isRunning: Bool { self.process.isRunning }

    /// Waits until `condition` holds, or the command ended, or a minute passed; returns whether it holds.
    @discardableResult
    func wait(until condition: (BackgroundCommand) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while !condition(self) {
            if !self.process.isRunning || Date() > deadline { return condition(self) }
            usleep(20_000)
        }
        return true
    }

    /// Sends it a signal, such as SIGKILL for a crash.
    func signal(_ number: Int32) {
        if self.process.isRunning { kill(self.process.processIdentifier, number) }
    }

    /// Waits until it ended (after a signal) and returns its status.
    func waitUntilExit() -> Int32 {
        self.process.waitUntilExit()
        return self.process.terminationStatus
    }

    /// Stops it (SIGTERM; SIGKILL if it is still running a minute later) and returns its exit status. A test
    /// runner may start its children with SIGINT ignored, so Ctrl-C's signal would not do.
    @discardableResult
    func stop() -> Int32 {
        if self.process.isRunning { kill(self.process.processIdentifier, SIGTERM) }
        let deadline = Date().addingTimeInterval(60)
        while self.process.isRunning && Date() < deadline { usleep(20_000) }
        if self.process.isRunning { kill(self.process.processIdentifier, SIGKILL) }
        self.process.waitUntilExit()
        return self.process.terminationStatus
    }

    private func read(_ name: String) -> String {
        let data = (try? Data(contentsOf: self.folder.appendingPathComponent(name))) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}

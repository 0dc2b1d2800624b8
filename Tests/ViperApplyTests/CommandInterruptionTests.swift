import Foundation
import SettingsAPI
import Testing
import ViperTestSupport

@testable import ViperApply

/// A stop (the task running a check or reload is cancelled) ends the command's process group at once, instead of
/// waiting for it up to its time limit, and nothing is written on an interrupted check.
@Suite("Stopping a running command")
struct CommandInterruptionTests {
    /// Waits until `path` exists (the command started), then cancels `task`.
    static func cancel<T>(_ task: Task<T, any Error>, once path: String) async {
        #expect(await Eventually.wait { FileManager.default.fileExists(atPath: path) }, "the command never started")
        task.cancel()
    }

    @Test("a cancelled run sends SIGTERM to the command's process group at once and throws interrupted")
    func cancelStopsTheGroup() async throws {
        try await TemporaryDirectory.with { directory in
            let pidFile = directory + "/pid"
            let started = ContinuousClock.now
            // Its time limit is far away: only the cancellation can end it soon.
            let task = Task {
                try await CommandRunner(timeoutSeconds: 600).run([
                    "sh", "-c", "sleep 120 & echo $! > \(pidFile); wait",
                ])
            }
            await Self.cancel(task, once: pidFile)
            let result = await task.result
            #expect(ContinuousClock.now - started < .seconds(300), "it waited for the command's time limit")
            #expect(throws: ApplyError.interrupted(command: "sh -c sleep 120 & echo $! > \(pidFile); wait")) {
                try result.get()
            }
            let pid = try #require(Processes.pid(in: pidFile))
            #expect(await Eventually.wait { !Processes.isRunning(pid) }, "what it started outlived the stop")
            if Processes.isRunning(pid) { kill(pid, SIGKILL) }
        }
    }

    @Test("a command that ignores SIGTERM is killed (SIGKILL) once the grace is over")
    func ignoredTermIsKilled() async throws {
        try await TemporaryDirectory.with { directory in
            let pidFile = directory + "/pid"
            let started = ContinuousClock.now
            let task = Task {
                try await CommandRunner(timeoutSeconds: 600, interruptGraceSeconds: 1).run(
                    ["sh", "-c", "trap '' TERM; sleep 120 & echo $! > \(pidFile); wait"],
                    killingLeftovers: true
                )
            }
            await Self.cancel(task, once: pidFile)
            let result = await task.result
            #expect(ContinuousClock.now - started < .seconds(300), "it waited for the command's time limit")
            #expect(throws: ApplyError.self) { try result.get() }
            let pid = try #require(Processes.pid(in: pidFile))
            #expect(await Eventually.wait { !Processes.isRunning(pid) }, "what ignored SIGTERM outlived the stop")
            if Processes.isRunning(pid) { kill(pid, SIGKILL) }
        }
    }

    @Test("a run in a task cancelled already starts nothing")
    func cancelledBeforeStart() async throws {
        try await TemporaryDirectory.with { directory in
            let marker = directory + "/ran"
            let task = Task {
                // Cancelled while it waits, before the command would start.
                try? await Task.sleep(for: .seconds(600))
                return try await CommandRunner().run(["touch", marker])
            }
            task.cancel()
            await #expect(throws: ApplyError.interrupted(command: "touch \(marker)")) { try await task.value }
            #expect(!FileManager.default.fileExists(atPath: marker))
        }
    }

    @Test("an apply whose check is stopped writes nothing and is marked interrupted, not a failed check")
    func interruptedCheckWritesNothing() async throws {
        try await TemporaryDirectory.with { directory in
            let folder = try TargetFolder(directory + "/targets")
            let started = directory + "/check-started"
            try folder.write(
                "slow",
                [
                    "reads": ["network"], "destination": .string(directory + "/etc/slow.conf"),
                    "check": ["sh", "-c", .string("touch \(started); exec sleep 600")],
                ],
                template: ""
            )
            try Files.write("old\n", to: directory + "/etc/slow.conf")
            let target = try folder.target("slow")
            // Its time limit comes before the check's end: only the stop can end it sooner.
            let applier = FileApplier(commands: CommandRunner(timeoutSeconds: 120), scratchDirectory: directory)
            let task = Task { await applier.apply(target, rendered: "new\n") }
            #expect(await Eventually.wait { FileManager.default.fileExists(atPath: started) }, "no check ran")
            task.cancel()
            let outcome = await task.value
            #expect(outcome.interrupted, "\(outcome)")
            #expect(outcome.result == .failed && !outcome.retryable, "\(outcome)")
            #expect(outcome.error?.contains("the applier is stopping") == true, "\(outcome)")
            #expect(try Files.read(directory + "/etc/slow.conf") == "old\n")
            #expect(Files.list(directory + "/etc") == ["slow.conf"], "the check's copy was left behind")
        }
    }
}

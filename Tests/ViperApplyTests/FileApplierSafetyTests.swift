import Foundation
import Glibc
import SettingsAPI
import Testing
import ViperTestSupport

@testable import ViperApply

/// What the applier does with a destination it did not make: links, FIFOs, files changed by hand, leftovers of a
/// crash, and a root it must not leave.
@Suite("Applying a target safely")
struct FileApplierSafetyTests {
    typealias Fixture = FileApplierTests.Fixture

    @Test("a failed reload puts back a symbolic link as a link, and a hard-linked 0600 file as the same file")
    func rollbackRestoresTheEntry() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            try FileManager.default.createDirectory(atPath: directory + "/etc", withIntermediateDirectories: true)
            try Files.write("SECRET\n", to: directory + "/secret")
            chmod(directory + "/secret", 0o600)
            symlink(directory + "/secret", fixture.destination)
            let linked = await fixture.applier.apply(fixture.target, rendered: "bad\n")
            #expect(linked.result == .reloadFailed, "\(linked)")
            let entry = try #require(Files.linkStatus(fixture.destination))
            #expect(entry.st_mode & S_IFMT == S_IFLNK, "the link itself is back, not a copy of what it points to")
            #expect(
                try FileManager.default.destinationOfSymbolicLink(atPath: fixture.destination) == directory + "/secret"
            )
            #expect(try Files.read(directory + "/secret") == "SECRET\n")

            unlink(fixture.destination)
            Glibc.link(directory + "/secret", fixture.destination)
            let before = try #require(Files.linkStatus(fixture.destination))
            let hard = await fixture.applier.apply(fixture.target, rendered: "bad\n")
            #expect(hard.result == .reloadFailed, "\(hard)")
            let after = try #require(Files.linkStatus(fixture.destination))
            #expect(after.st_ino == before.st_ino && after.st_nlink == 2 && after.st_mode & 0o777 == 0o600)
            #expect(fixture.leftovers.isEmpty, "\(fixture.leftovers)")
        }
    }

    @Test("a FIFO at the destination is refused at once, naming it; a link is replaced, never followed")
    func specialDestinations() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory, reload: false)
            try FileManager.default.createDirectory(atPath: directory + "/etc", withIntermediateDirectories: true)
            mkfifo(fixture.destination, 0o644)
            let fifo = await fixture.applier.apply(fixture.target, rendered: "a = 1\n")
            #expect(fifo.result == .failed)
            #expect(fifo.error?.contains("it is a FIFO, not a regular file") == true, "\(fifo)")
            unlink(fixture.destination)

            try Files.write("other\n", to: directory + "/other")
            symlink(directory + "/other", fixture.destination)
            let replaced = await fixture.applier.apply(fixture.target, rendered: "a = 1\n")
            #expect(replaced.result == .written, "\(replaced)")
            #expect(Files.linkStatus(fixture.destination).map { $0.st_mode & S_IFMT == S_IFREG } == true)
            #expect(try Files.read(directory + "/other") == "other\n")
        }
    }

    @Test("a file with the right bytes but a mode changed by hand is written again with the target's mode")
    func modeDrift() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory, reload: false)
            #expect(await fixture.applier.apply(fixture.target, rendered: "a = 1\n").result == .written)
            chmod(fixture.destination, 0o666)
            #expect(await fixture.applier.apply(fixture.target, rendered: "a = 1\n").result == .written)
            #expect(Files.linkStatus(fixture.destination).map { $0.st_mode & 0o7777 } == 0o640)
            #expect(await fixture.applier.apply(fixture.target, rendered: "a = 1\n").result == .unchanged)
        }
    }

    @Test("temporary files and a kept previous file that a crash left beside the destination are removed")
    func leftoversOfACrash() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            try FileManager.default.createDirectory(atPath: directory + "/etc", withIntermediateDirectories: true)
            for name in [".app.conf.viper-apply.Ab3xYz", ".app.conf.viper-apply.previous"] {
                try Files.write("x", to: directory + "/etc/" + name)
                // As after a kill and systemd's restart a few seconds later.
                Self.age(directory + "/etc/" + name, seconds: 5)
            }
            for name in [".app.conf.notours", ".app.conf.Ab3xYz", ".app.conf.viper-apply.backup2"] {
                try Files.write("keep", to: directory + "/etc/" + name)
                Self.age(directory + "/etc/" + name)
            }
            #expect(await fixture.applier.apply(fixture.target, rendered: "a = 1\n").result == .written)
            #expect(fixture.leftovers == [".app.conf.Ab3xYz", ".app.conf.notours", ".app.conf.viper-apply.backup2"])
        }
    }

    @Test(
        "another applier's temporary file beside the destination is left alone: it holds it locked, or wrote it just now"
    )
    func anotherAppliersFile() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            try FileManager.default.createDirectory(atPath: directory + "/etc", withIntermediateDirectories: true)
            let locked = directory + "/etc/.app.conf.viper-apply.Lock01"
            let recent = directory + "/etc/.app.conf.viper-apply.New001"
            let stale = directory + "/etc/.app.conf.viper-apply.Old001"
            for path in [locked, recent, stale] { try Files.write("x", to: path) }
            Self.age(locked)
            Self.age(stale)
            let holder = open(locked, O_RDONLY)
            defer { close(holder) }
            #expect(flock(holder, LOCK_EX) == 0)
            #expect(await fixture.applier.apply(fixture.target, rendered: "a = 1\n").result == .written)
            #expect(Files.exists(locked) && Files.exists(recent) && !Files.exists(stale))
        }
    }

    @Test(
        "a template that renders more than 16 MiB fails its target, not retried, nothing written; a diff shows 64 KiB"
    )
    func oversizedRendering() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory, reload: false)
            let huge = String(repeating: "0123456789abcde\n", count: (16 << 20) / 16 + 1)
            let outcome = await fixture.applier.apply(fixture.target, rendered: huge)
            #expect(outcome.result == .failed && !outcome.retryable, "\(outcome)")
            #expect(outcome.error?.contains("renders 16777232 bytes, more than the 16 MiB") == true)
            #expect(!Files.exists(fixture.destination))
            // Below the limit it is written; the dry run's diff of it is cut at 64 KiB, at a line's end.
            let large = String(huge.utf8.prefix(1 << 20))!
            #expect(await fixture.applier.apply(fixture.target, rendered: large).result == .written)
            let preview = await fixture.applier.apply(fixture.target, rendered: "a = 1\n", dryRun: true)
            #expect(preview.diff.utf8.count < LineDiff.sizeLimit + 100)
            #expect(
                preview.diff.hasSuffix("more bytes of the diff not shown (at most 64 KiB are)\n"),
                "\(preview.diff.suffix(200))"
            )
            #expect(preview.diff.contains("\n-0123456789abcde\n"))
        }
    }

    /// Makes `path` look written two minutes ago: older than a file in use can be.
    static func age(_ path: String, seconds: Int = 120) {
        let old = timespec(tv_sec: time(nil) - seconds, tv_nsec: 0)
        let times = [old, old]
        utimensat(AT_FDCWD, path, times, 0)
    }

    @Test("after a stop during a reload, the same bytes are reloaded again, and a failure puts back the kept entry")
    func interruptedReload() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            let previous = directory + "/etc/.app.conf.viper-apply.previous"
            // What a SIGKILL during the reload leaves: the new file in place, the one it replaced kept.
            #expect(await fixture.applier.apply(fixture.target, rendered: "a = 1\n").result == .written)
            try Files.write("old\n", to: previous)
            let again = await fixture.applier.apply(fixture.target, rendered: "a = 1\n")
            #expect(again.result == .written && again.reload?.status == 0, "\(again)")
            #expect(fixture.reloads.count == 2 && !Files.exists(previous))
            #expect(await fixture.applier.apply(fixture.target, rendered: "a = 1\n").result == .unchanged)

            // The same, with a file its program refuses: the kept entry goes back.
            #expect(await fixture.applier.apply(fixture.target, rendered: "bad\n").result == .reloadFailed)
            try Files.write("bad\n", to: fixture.destination)
            try Files.write("old\n", to: previous)
            let refused = await fixture.applier.apply(fixture.target, rendered: "bad\n")
            #expect(refused.result == .reloadFailed, "\(refused)")
            #expect(try Files.read(fixture.destination) == "old\n")
            #expect(fixture.leftovers.isEmpty, "\(fixture.leftovers)")
        }
    }

    @Test("with --root, a destination whose directory is a link out of the root is refused, and nothing is written")
    func rootConfinement() async throws {
        try await TemporaryDirectory.with { directory in
            let folder = try TargetFolder(directory)
            try folder.write("x", ["reads": ["network"], "destination": "/linked/x.conf"], template: "x\n")
            let root = directory + "/root"
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: directory + "/outside", withIntermediateDirectories: true)
            symlink(directory + "/outside", root + "/linked")
            let target = try folder.target("x", root: root)
            let applier = FileApplier(commands: CommandRunner(), scratchDirectory: directory)
            let outcome = await applier.apply(target, rendered: "x\n")
            #expect(outcome.result == .failed)
            #expect(outcome.error?.contains("\(root)/linked is a symbolic link") == true, "\(outcome)")
            #expect(Files.list(directory + "/outside").isEmpty)
        }
    }

    @Test("with --root, a link below the root deeper up the destination's path is refused; on the host it is followed")
    func rootConfinementDeeper() async throws {
        try await TemporaryDirectory.with { directory in
            let folder = try TargetFolder(directory)
            try folder.write("x", ["reads": ["network"], "destination": "/etc/linked/sub/x.conf"], template: "x\n")
            let (root, outside) = (directory + "/root", directory + "/outside")
            try FileManager.default.createDirectory(atPath: root + "/etc", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
            symlink(outside, root + "/etc/linked")
            let applier = FileApplier(commands: CommandRunner(), scratchDirectory: directory)
            let outcome = await applier.apply(try folder.target("x", root: root), rendered: "x\n")
            #expect(outcome.result == .failed)
            #expect(outcome.error?.contains("\(root)/etc/linked is a symbolic link") == true, "\(outcome)")
            #expect(Files.list(outside).isEmpty, "nothing is created outside the root")

            // Without a root, the destination is the host's: its directories' links are the system's own.
            try folder.write(
                "host",
                ["reads": ["network"], "destination": .string(root + "/etc/linked/sub/x.conf")],
                template: "x\n"
            )
            #expect(await applier.apply(try folder.target("host"), rendered: "x\n").result == .written)
            #expect(try Files.read(outside + "/sub/x.conf") == "x\n")
        }
    }

    /// A target writing `/etc/race/app.conf` under `DIR/root`, whose `command` (its check, or its reload) swaps
    /// `etc/race` for a link to `DIR/outside`, as a race with the applier would.
    static func racingTarget(_ directory: String, swapIn field: String) throws -> ApplyTarget {
        let (root, outside) = (directory + "/root", directory + "/outside")
        try FileManager.default.createDirectory(atPath: root + "/etc/race", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        let swap =
            "[ -L \(root)/etc/race ] || { mv \(root)/etc/race \(root)/etc/race.real &&"
            + " ln -s \(outside) \(root)/etc/race; }"
        let folder = try TargetFolder(directory)
        try folder.write(
            "race",
            [
                "reads": ["network"], "destination": "/etc/race/app.conf",
                .init(stringLiteral: field): ["sh", "-c", .string(field == "check" ? swap : swap + "; exit 1")],
            ],
            template: ""
        )
        return try folder.target("race", root: directory + "/root")
    }

    @Test("with --root, a directory swapped for a link out of the root during the check: the file stays in the root")
    func directorySwappedDuringCheck() async throws {
        try await TemporaryDirectory.with { directory in
            let target = try Self.racingTarget(directory, swapIn: "check")
            let applier = FileApplier(commands: CommandRunner(), scratchDirectory: directory)
            let outcome = await applier.apply(target, rendered: "a = 1\n")
            #expect(outcome.result == .written, "\(outcome)")
            #expect(Files.list(directory + "/outside").isEmpty, "nothing is written outside the root")
            // What was written went where it was checked: the directory opened, whatever its name is now.
            #expect(Files.list(directory + "/root/etc/race.real") == ["app.conf"])
            #expect(try Files.read(directory + "/root/etc/race.real/app.conf") == "a = 1\n")
        }
    }

    @Test(
        "with --root, a directory swapped for a link out of the root during a failed reload: the rollback stays in it"
    )
    func directorySwappedDuringReload() async throws {
        try await TemporaryDirectory.with { directory in
            let target = try Self.racingTarget(directory, swapIn: "reload")
            try Files.write("not the applier's\n", to: directory + "/outside/app.conf")
            let applier = FileApplier(commands: CommandRunner(), scratchDirectory: directory, reloadsUnderRoot: true)
            let outcome = await applier.apply(target, rendered: "a = 1\n")
            #expect(outcome.result == .reloadFailed, "\(outcome)")
            #expect(outcome.error?.contains("the new file was removed") == true, "\(outcome)")
            // The new file is removed from the directory it was written in, not from where the link leads.
            #expect(try Files.read(directory + "/outside/app.conf") == "not the applier's\n")
            #expect(Files.list(directory + "/outside") == ["app.conf"])
            #expect(Files.list(directory + "/root/etc/race.real").isEmpty)
        }
    }

    @Test("a command ends when it exits, though a process it left in the background holds its standard error")
    func backgroundProcess() async throws {
        try await TemporaryDirectory.with { directory in
            let pidFile = directory + "/pid"
            let result = try await CommandRunner(timeoutSeconds: 120).run([
                "sh", "-c", "echo started >&2; sleep 120 & echo $! > \(pidFile); exit 0",
            ])
            #expect(result == CommandResult(status: 0, stderr: "started"))
            let pid = try #require(Processes.pid(in: pidFile))
            #expect(Processes.isRunning(pid), "a reload may start a service: what it leaves is not killed")
            kill(pid, SIGKILL)
        }
    }

    @Test("a command killed at its timeout takes what it started with it (its process group)")
    func timeoutKillsTheGroup() async throws {
        try await TemporaryDirectory.with { directory in
            let pidFile = directory + "/pid"
            let result = try await CommandRunner(timeoutSeconds: 1).run([
                "sh", "-c", "sleep 120 & echo $! > \(pidFile); wait",
            ])
            #expect(result.status == 137)
            let pid = try #require(Processes.pid(in: pidFile))
            // SIGKILL is immediate; the wait is generous.
            #expect(await Eventually.wait(limit: .seconds(30)) { !Processes.isRunning(pid) }, "it outlived its command")
            if Processes.isRunning(pid) { kill(pid, SIGKILL) }
        }
    }

    @Test("a command does not get the variables systemd set for the applier's own service; it gets the others")
    func noServiceVariables() async throws {
        let kept = CommandRunner.commandVariables([
            "PATH=/usr/bin", "NOTIFY_SOCKET=/run/systemd/notify", "WATCHDOG_USEC=20000000", "WATCHDOG_PID=7",
            "LISTEN_FDS=1", "LISTEN_PID=7", "LISTEN_FDNAMES=x", "NOTIFY_SOCKETX=kept", "LANG=C.UTF-8",
        ])
        #expect(kept == ["PATH=/usr/bin", "NOTIFY_SOCKETX=kept", "LANG=C.UTF-8"])
        // What a command started now gets: the applier's environment (PATH among it), whatever else it holds.
        let result = try await CommandRunner().run(["sh", "-c", "test -n \"$PATH\" && env >&2; exit 0"])
        #expect(result.stderr.contains("PATH="), "\(result)")
        #expect(!result.stderr.contains("NOTIFY_SOCKET="), "\(result)")
    }

    @Test("a command a signal ended is said to be killed by it; one that exits 139 itself is not")
    func killedBySignal() async throws {
        let crashed = try await CommandRunner().run(["sh", "-c", "kill -SEGV $$"])
        #expect(crashed.status == 139)
        #expect(crashed.signal == SIGSEGV)
        #expect(crashed.ending == "was killed by signal 11 (SIGSEGV)")
        let exited = try await CommandRunner().run(["sh", "-c", "exit 139"])
        #expect(exited == CommandResult(status: 139, stderr: ""))
        #expect(exited.ending == "exited with status 139")
    }

    @Test("a command inherits no descriptor of the applier but its standard input, output and error")
    func noInheritedDescriptors() async throws {
        try await TemporaryDirectory.with { directory in
            try Files.write("x", to: directory + "/open")
            let descriptor = open(directory + "/open", O_RDONLY)  // no O_CLOEXEC, as a library might leave one
            defer { close(descriptor) }
            let result = try await CommandRunner().run([
                "sh", "-c", "test -e /proc/$$/fd/\(descriptor) && echo inherited >&2; exit 0",
            ])
            #expect(result == CommandResult(status: 0, stderr: ""))
        }
    }
}

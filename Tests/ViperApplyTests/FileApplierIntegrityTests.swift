import Foundation
import Glibc
import SettingsAPI
import Testing
import ViperTestSupport

@testable import ViperApply

/// What the applier installs and what it leaves alone: the rendered bytes with the target's mode whatever the check
/// did, an administrator's files beside the destination, a destination too large to read, an image under `--root`.
@Suite("Applying a target: what is installed, and what is left alone")
struct FileApplierIntegrityTests {
    typealias Fixture = FileApplierTests.Fixture

    /// A target writing `DIR/etc/app.conf` (mode 0640) with `check` as its check and no reload.
    static func target(_ directory: String, check: [JSONValue]) throws -> (ApplyTarget, FileApplier) {
        let folder = try TargetFolder(directory)
        try folder.write(
            "app",
            [
                "reads": ["network"], "destination": .string(directory + "/etc/app.conf"), "mode": "0640",
                "check": .array(check),
            ],
            template: ""
        )
        return (try folder.target("app"), FileApplier(commands: CommandRunner(), scratchDirectory: directory))
    }

    @Test("a check that appends to the file it checks fails the target, naming why; the destination is untouched")
    func checkChangesBytes() async throws {
        try await TemporaryDirectory.with { directory in
            let (target, applier) = try Self.target(
                directory,
                check: ["sh", "-c", "chmod 777 \"$0\"; echo injected >> \"$0\"", "{file}"]
            )
            try Files.write("old\n", to: target.destination)
            chmod(target.destination, 0o640)
            // The dry run tells what the apply will do.
            let preview = await applier.apply(target, rendered: "a = 1\n", dryRun: true)
            #expect(preview.result == .checkFailed, "\(preview)")
            #expect(preview.error?.contains("the check command changed the file it checks") == true, "\(preview)")
            let outcome = await applier.apply(target, rendered: "a = 1\n")
            #expect(outcome.result == .checkFailed, "\(outcome)")
            #expect(outcome.error?.contains("the check command changed the file it checks") == true, "\(outcome)")
            #expect(!outcome.retryable, "the same check would change the same bytes again")
            #expect(try Files.read(target.destination) == "old\n")
            #expect(Files.list(directory + "/etc") == ["app.conf"], "the temporary file is removed")
        }
    }

    @Test("a check that replaces the file it checks (as sed -i does) fails the target; the destination is untouched")
    func checkReplacesFile() async throws {
        try await TemporaryDirectory.with { directory in
            let (target, applier) = try Self.target(
                directory,
                check: ["sh", "-c", "printf 'a = 1\\n' > \"$0.new\" && mv \"$0.new\" \"$0\"", "{file}"]
            )
            let outcome = await applier.apply(target, rendered: "a = 1\n")
            #expect(outcome.result == .checkFailed, "\(outcome)")
            #expect(outcome.error?.contains("it removed or replaced the file") == true, "\(outcome)")
            #expect(!Files.exists(target.destination))
            #expect(Files.list(directory + "/etc").isEmpty, "\(Files.list(directory + "/etc"))")
        }
    }

    @Test("a check that changes only the mode of the file it checks: the file is installed with the target's mode")
    func checkChangesMode() async throws {
        try await TemporaryDirectory.with { directory in
            let (target, applier) = try Self.target(directory, check: ["chmod", "4777", "{file}"])
            let outcome = await applier.apply(target, rendered: "a = 1\n")
            #expect(outcome.result == .written, "\(outcome)")
            #expect(try Files.read(target.destination) == "a = 1\n")
            #expect(Files.linkStatus(target.destination).map { $0.st_mode & 0o7777 } == 0o640)
            #expect(await applier.apply(target, rendered: "a = 1\n").result == .unchanged)
        }
    }

    @Test("a process a check leaves running, even in a session of its own, cannot change the installed file")
    func checkLeftoverCannotReachTheFile() async throws {
        try await TemporaryDirectory.with { directory in
            let (started, go, done) = (directory + "/started", directory + "/go", directory + "/done")
            // It keeps the file it was given open, escapes the check's process group (the check exits once it has),
            // and writes when the test tells it to (it gives up when the test's directory is gone).
            let late =
                "exec 3>>\"$1\"; setsid sh -c 'touch \(started);"
                + " while [ ! -e \(go) ]; do [ -e \(started) ] || exit; sleep 0.01; done;"
                + " echo EVIL-LATE >&3; touch \(done)' </dev/null 2>/dev/null &"
                + " while [ ! -e \(started) ]; do sleep 0.01; done; exit 0"
            let (target, applier) = try Self.target(directory, check: ["sh", "-c", .string(late), "x", "{file}"])
            defer { _ = creat(go, 0o644) }
            let outcome = await applier.apply(target, rendered: "a = 1\n")
            #expect(outcome.result == .written, "\(outcome)")
            _ = creat(go, 0o644)
            #expect(await Eventually.wait { Files.exists(done) }, "the check's leftover never wrote")
            #expect(try Files.read(target.destination) == "a = 1\n")
            #expect(Files.linkStatus(target.destination).map { $0.st_mode & 0o7777 } == 0o640)
            #expect(await applier.apply(target, rendered: "a = 1\n").result == .unchanged)
        }
    }

    @Test("what a check leaves running in its process group is killed when the check exits")
    func checkLeftoverIsKilled() async throws {
        try await TemporaryDirectory.with { directory in
            let pidFile = directory + "/pid"
            let (target, applier) = try Self.target(
                directory,
                check: ["sh", "-c", .string("sleep 120 & echo $! > \(pidFile); exit 0")]
            )
            let outcome = await applier.apply(target, rendered: "a = 1\n")
            #expect(outcome.result == .written, "\(outcome)")
            let pid = try #require(Processes.pid(in: pidFile))
            // SIGKILL is immediate; the wait is generous.
            #expect(await Eventually.wait(limit: .seconds(30)) { !Processes.isRunning(pid) }, "it outlived its check")
            if Processes.isRunning(pid) { kill(pid, SIGKILL) }
        }
    }

    @Test("an administrator's .NAME.backup and .NAME.previous beside the destination survive every apply")
    func administratorsFilesSurvive() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            let backup = directory + "/etc/.app.conf.backup"
            let previous = directory + "/etc/.app.conf.previous"
            try Files.write("backup\n", to: backup)
            try Files.write("admin's\n", to: previous)
            #expect(await fixture.applier.apply(fixture.target, rendered: "a = 1\n").result == .written)
            // Not mistaken for an entry kept by a stop during a reload: the same bytes are not reloaded again.
            #expect(await fixture.applier.apply(fixture.target, rendered: "a = 1\n").result == .unchanged)
            // A failed reload puts back what the applier kept, not the administrator's file.
            #expect(await fixture.applier.apply(fixture.target, rendered: "bad\n").result == .reloadFailed)
            #expect(try Files.read(fixture.destination) == "a = 1\n")
            #expect(try Files.read(backup) == "backup\n")
            #expect(try Files.read(previous) == "admin's\n")
            #expect(fixture.leftovers == [".app.conf.backup", ".app.conf.previous"], "\(fixture.leftovers)")
        }
    }

    @Test("the temporary file the check reads is named .NAME.viper-apply.XXXXXX beside the destination")
    func temporaryName() async throws {
        try await TemporaryDirectory.with { directory in
            let (target, applier) = try Self.target(
                directory,
                check: ["sh", "-c", .string("basename \"$0\" > \(directory)/checked"), "{file}"]
            )
            #expect(await applier.apply(target, rendered: "a = 1\n").result == .written)
            let name = try Files.read(directory + "/checked").trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(
                name.hasPrefix(".app.conf.viper-apply.") && name.count == ".app.conf.viper-apply.".count + 6,
                "\(name)"
            )
        }
    }

    @Test("a destination over 16 MiB is replaced, and put back as it was when the reload fails")
    func oversizedDestination() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            try Files.write("huge\n", to: fixture.destination)
            #expect(truncate(fixture.destination, off_t(DestinationFile.sizeLimit + 1)) == 0)
            let before = try #require(Files.linkStatus(fixture.destination))

            let refused = await fixture.applier.apply(fixture.target, rendered: "bad\n")
            #expect(refused.result == .reloadFailed, "\(refused)")
            let restored = try #require(Files.linkStatus(fixture.destination))
            #expect(restored.st_ino == before.st_ino && restored.st_size == before.st_size)

            let outcome = await fixture.applier.apply(fixture.target, rendered: "a = 1\n")
            #expect(outcome.result == .written, "\(outcome)")
            #expect(outcome.reload?.status == 0)
            #expect(try Files.read(fixture.destination) == "a = 1\n")
            #expect(fixture.leftovers.isEmpty, "\(fixture.leftovers)")
            #expect(await fixture.applier.apply(fixture.target, rendered: "a = 1\n").result == .unchanged)
        }
    }

    @Test("with --root, the check runs but the reload does not, and the outcome says why; --run-reloads runs it")
    func reloadsUnderRoot() async throws {
        try await TemporaryDirectory.with { directory in
            let folder = try TargetFolder(directory)
            try folder.write(
                "app",
                [
                    "reads": ["network"], "destination": "/etc/app.conf",
                    "check": ["sh", "-c", .string("echo checked >> \(directory)/commands")],
                    "reload": ["sh", "-c", .string("echo reloaded >> \(directory)/commands")],
                ],
                template: ""
            )
            let root = directory + "/root"
            let target = try folder.target("app", root: root)
            let skipping = FileApplier(commands: CommandRunner(), scratchDirectory: directory)
            let outcome = await skipping.apply(target, rendered: "a = 1\n")
            #expect(outcome.result == .written && outcome.check?.status == 0 && outcome.reload == nil, "\(outcome)")
            #expect(outcome.reloadSkipped?.contains("with --root \(root)") == true, "\(outcome)")
            #expect(outcome.reloadSkipped?.contains("--run-reloads") == true)
            #expect(try Files.read(root + "/etc/app.conf") == "a = 1\n")
            #expect(try Files.read(directory + "/commands") == "checked\n")
            #expect(Files.list(root + "/etc") == ["app.conf"], "nothing kept for a reload that does not run")

            let running = FileApplier(commands: CommandRunner(), scratchDirectory: directory, reloadsUnderRoot: true)
            let reloaded = await running.apply(target, rendered: "a = 2\n")
            #expect(reloaded.result == .written && reloaded.reload?.status == 0 && reloaded.reloadSkipped == nil)
            #expect(try Files.read(directory + "/commands") == "checked\nchecked\nreloaded\n")
        }
    }
}

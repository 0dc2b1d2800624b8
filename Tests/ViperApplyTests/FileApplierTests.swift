import Foundation
import SettingsAPI
import Testing
import ViperTestSupport

@testable import ViperApply

/// The apply procedure on real files with real commands (`sh`, `grep`).
@Suite("Applying a target to its file")
struct FileApplierTests {
    /// A target writing `DIR/etc/app.conf` whose reload appends to `DIR/reloads` and fails while the file holds
    /// `bad`; its check fails when the rendered file holds `reject`.
    struct Fixture {
        let directory: String
        let target: ApplyTarget
        let applier: FileApplier
        var destination: String { self.directory + "/etc/app.conf" }
        var reloads: [String] {
            ((try? Files.read(self.directory + "/reloads")) ?? "").split(separator: "\n").map(String.init)
        }

        init(_ directory: String, check: Bool = true, reload: Bool = true) throws {
            self.directory = directory
            let folder = try TargetFolder(directory)
            var fields: [String: JSONValue] = [
                "reads": ["network"], "destination": .string(directory + "/etc/app.conf"), "mode": "0640",
            ]
            if check { fields["check"] = ["sh", "-c", "! grep -q reject \"$0\" || { echo rejected >&2; exit 4; }"] }
            if reload {
                fields["reload"] = [
                    "sh", "-c",
                    .string(
                        "echo reload >> \(directory)/reloads; ! grep -q bad \(directory)/etc/app.conf || { echo cannot >&2; exit 3; }"
                    ),
                ]
            }
            try folder.write("app", .object(fields), template: "")
            self.target = try folder.target("app")
            try FileManager.default.createDirectory(atPath: directory + "/scratch", withIntermediateDirectories: true)
            self.applier = FileApplier(commands: CommandRunner(), scratchDirectory: directory + "/scratch")
        }

        /// Files in the destination's directory (no temporary file may be left there).
        var leftovers: [String] { Files.list(self.directory + "/etc").filter { $0 != "app.conf" } }
    }

    @Test("a new file is written with its mode and reloaded; the same bytes again do nothing, not even a reload")
    func writesThenNothing() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            let first = await fixture.applier.apply(fixture.target, rendered: "a = 1\n")
            #expect(first.result == .written, "\(first)")
            #expect(first.check?.status == 0 && first.reload?.status == 0)
            #expect(try Files.read(fixture.destination) == "a = 1\n")
            let mode = try FileManager.default.attributesOfItem(atPath: fixture.destination)[.posixPermissions]
            #expect(mode as? Int == 0o640)
            let again = await fixture.applier.apply(fixture.target, rendered: "a = 1\n")
            #expect(again.result == .unchanged && again.reload == nil && again.check == nil)
            #expect(fixture.reloads == ["reload"])
            let changed = await fixture.applier.apply(fixture.target, rendered: "a = 2\n")
            #expect(changed.result == .written)
            #expect(changed.diff.contains("-a = 1\n+a = 2\n"), "\(changed.diff)")
            #expect(fixture.reloads.count == 2)
            #expect(fixture.leftovers.isEmpty)
        }
    }

    @Test("a failed check leaves the destination as it was, with no temporary file, and reloads nothing")
    func checkFails() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            _ = await fixture.applier.apply(fixture.target, rendered: "good\n")
            let outcome = await fixture.applier.apply(fixture.target, rendered: "reject\n")
            #expect(outcome.result == .checkFailed)
            #expect(outcome.check == CommandResult(status: 4, stderr: "rejected"))
            #expect(outcome.error?.contains("exited with status 4") == true, "\(outcome)")
            #expect(try Files.read(fixture.destination) == "good\n")
            #expect(fixture.reloads == ["reload"])
            #expect(fixture.leftovers.isEmpty, "\(fixture.leftovers)")
        }
    }

    @Test("a failed reload puts the previous file back and reloads again")
    func reloadFailsAndRollsBack() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            _ = await fixture.applier.apply(fixture.target, rendered: "good\n")
            let outcome = await fixture.applier.apply(fixture.target, rendered: "bad\n")
            #expect(outcome.result == .reloadFailed, "\(outcome)")
            #expect(outcome.reload == CommandResult(status: 3, stderr: "cannot"))
            #expect(outcome.rollbackReload?.status == 0)
            #expect(outcome.error?.contains("the previous file was put back and reloaded") == true, "\(outcome)")
            #expect(try Files.read(fixture.destination) == "good\n")
            #expect(fixture.reloads.count == 3)
            #expect(fixture.leftovers.isEmpty)
        }
    }

    @Test("a reload a signal ends, and the reload of the previous file after it, are said to be killed by it")
    func reloadKilledBySignal() async throws {
        try await TemporaryDirectory.with { directory in
            let folder = try TargetFolder(directory)
            // Reloads once, then every reload is killed.
            let reload: JSONValue = [
                "sh", "-c",
                .string("test -e \(directory)/armed || { touch \(directory)/armed; exit 0; }; kill -KILL $$"),
            ]
            try folder.write(
                "app",
                ["reads": ["network"], "destination": .string(directory + "/etc/app.conf"), "reload": reload],
                template: ""
            )
            let target = try folder.target("app")
            try FileManager.default.createDirectory(atPath: directory + "/scratch", withIntermediateDirectories: true)
            let applier = FileApplier(commands: CommandRunner(), scratchDirectory: directory + "/scratch")
            #expect(await applier.apply(target, rendered: "a = 1\n").result == .written)
            let outcome = await applier.apply(target, rendered: "a = 2\n")
            #expect(outcome.result == .reloadFailed, "\(outcome)")
            #expect(outcome.rollbackReload?.signal == SIGKILL)
            #expect(
                outcome.error?.hasSuffix(
                    "was killed by signal 9 (SIGKILL); the previous file was put back, and reloading it failed too: it"
                        + " was killed by signal 9 (SIGKILL)"
                ) == true,
                "\(outcome.error ?? "")"
            )
            #expect(try Files.read(directory + "/etc/app.conf") == "a = 1\n")
        }
    }

    @Test("a failed reload of a file that did not exist before removes it")
    func reloadFailsWithoutPrevious() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            let outcome = await fixture.applier.apply(fixture.target, rendered: "bad\n")
            #expect(outcome.result == .reloadFailed)
            #expect(outcome.error?.contains("the new file was removed") == true, "\(outcome)")
            #expect(!Files.exists(fixture.destination))
        }
    }

    @Test("a dry run runs the check on a scratch copy and writes nothing beside the destination")
    func dryRun() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            _ = await fixture.applier.apply(fixture.target, rendered: "old\n")
            let would = await fixture.applier.apply(fixture.target, rendered: "new\n", dryRun: true)
            #expect(would.result == .wouldWrite && would.check?.status == 0 && would.reload == nil)
            #expect(would.diff.contains("-old\n+new\n"))
            let same = await fixture.applier.apply(fixture.target, rendered: "old\n", dryRun: true)
            #expect(same.result == .unchanged && same.check?.status == 0 && same.diff.isEmpty, "checked all the same")
            let refused = await fixture.applier.apply(fixture.target, rendered: "reject\n", dryRun: true)
            #expect(refused.result == .checkFailed && refused.check?.stderr == "rejected")
            #expect(try Files.read(fixture.destination) == "old\n")
            #expect(fixture.reloads == ["reload"])
            #expect(fixture.leftovers.isEmpty && Files.list(directory + "/scratch").isEmpty)
        }
    }

    @Test(
        "a dry run's check sees its copy with the destination's owner, group and mode, as the apply's check does",
        .enabled(if: geteuid() == 0, "only root gives a file another owner")
    )
    func dryRunCopyMode() async throws {
        try await TemporaryDirectory.with { directory in
            let folder = try TargetFolder(directory)
            try folder.write(
                "app",
                [
                    "reads": ["network"], "destination": .string(directory + "/etc/app.conf"), "mode": "0640",
                    "group": "daemon", "check": ["sh", "-c", "stat -c '%a %U %G' \"$0\" >&2", "{file}"],
                ],
                template: ""
            )
            let target = try folder.target("app")
            try FileManager.default.createDirectory(atPath: directory + "/scratch", withIntermediateDirectories: true)
            let applier = FileApplier(commands: CommandRunner(), scratchDirectory: directory + "/scratch")
            let dry = await applier.apply(target, rendered: "x\n", dryRun: true)
            let real = await applier.apply(target, rendered: "x\n")
            #expect(dry.check?.stderr == "640 root daemon", "\(dry)")
            #expect(real.check?.stderr == dry.check?.stderr, "\(real)")
        }
    }

    @Test("when the file cannot be written the outcome says where and why, and nothing is left")
    func cannotWrite() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory, check: false, reload: false)
            try Files.write("a file where the directory should be", to: directory + "/etc")
            let outcome = await fixture.applier.apply(fixture.target, rendered: "x\n")
            #expect(outcome.result == .failed)
            #expect(outcome.error?.contains("\(directory)/etc") == true, "\(outcome)")
            #expect(try Files.read(directory + "/etc") == "a file where the directory should be")
        }
    }

    @Test("a check command that does not exist is a failed check naming it")
    func missingCommand() async throws {
        let result = await #expect(throws: ApplyError.self) {
            try await CommandRunner().run(["/nonexistent/check-tool", "x"])
        }
        #expect("\(result.map { "\($0)" } ?? "")".contains("cannot run /nonexistent/check-tool x"))
    }

    @Test("a check's long standard error keeps its end from a line on, saying how much came before")
    func longStandardError() async throws {
        let result = try await CommandRunner().run(["sh", "-c", "seq 1 20000 >&2; echo FINAL-REASON >&2; exit 1"])
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        let first = try #require(lines.first)
        #expect(first.hasPrefix("… ") && first.hasSuffix(" bytes of standard error before this left out"), "\(first)")
        #expect(lines.last == "FINAL-REASON")
        // Whole lines from the first kept on, and what is left out and what is kept add up to what was written.
        let kept = lines.dropFirst().dropLast()
        #expect(kept.allSatisfy { Int($0) != nil } && kept.last == "20000")
        let leftOut = try #require(Int(first.dropFirst(2).prefix { $0 != " " }))
        let written = (1...20000).reduce(0) { $0 + "\($1)\n".utf8.count } + "FINAL-REASON\n".utf8.count
        #expect(leftOut + lines.dropFirst().joined(separator: "\n").utf8.count + 1 == written)
        #expect(Int(kept.first ?? "") == 20000 - kept.count + 1)
    }

    @Test("a permit withdrawn before the write (its target was removed) leaves the file as it is, reloading nothing")
    func withdrawnPermit() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            try Files.write("old\n", to: fixture.destination)
            let permit = ApplyPermit()
            #expect(permit.withdraw(), "nothing was written under it")
            let outcome = await fixture.applier.apply(fixture.target, rendered: "a = 1\n", permit: permit)
            #expect(outcome.interrupted && outcome.result == .failed, "\(outcome)")
            #expect(outcome.error?.contains("removed") == true, "\(outcome)")
            #expect(try Files.read(fixture.destination) == "old\n")
            #expect(fixture.reloads.isEmpty)
            #expect(fixture.leftovers.isEmpty, "\(fixture.leftovers)")
            // Once the file was replaced under it, a withdrawal says so: the file was written before.
            let used = ApplyPermit()
            let written = await fixture.applier.apply(fixture.target, rendered: "a = 2\n", permit: used)
            #expect(written.result == .written, "\(written)")
            #expect(!used.withdraw() && !used.isWithdrawn)
        }
    }

    @Test("a dry run of a file with the rendered bytes but another mode, owner or group says what differs")
    func dryRunAttributes() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try Fixture(directory)
            try Files.write("a = 1\n", to: fixture.destination)
            #expect(chmod(fixture.destination, 0o666) == 0)
            var expected = ["mode 0666 -> 0640"]
            if geteuid() == 0 {
                #expect(chown(fixture.destination, 65534, 65534) == 0)
                expected += [
                    "owner \(AccountName.user(65534)) -> \(AccountName.user(0))",
                    "group \(AccountName.group(65534)) -> \(AccountName.group(0))",
                ]
            }
            let outcome = await fixture.applier.apply(fixture.target, rendered: "a = 1\n", dryRun: true)
            #expect(outcome.result == .wouldWrite && outcome.diff.isEmpty, "\(outcome)")
            #expect(outcome.attributes == expected)
            let unchanged = await fixture.applier.apply(fixture.target, rendered: "a = 1\n")
            #expect(unchanged.result == .written, "the mode and owner are set, though the bytes are the same")
            let again = await fixture.applier.apply(fixture.target, rendered: "a = 1\n", dryRun: true)
            #expect(again.result == .unchanged && again.attributes.isEmpty, "\(again)")
        }
    }

    @Test("a command still running at its timeout is killed, and says so")
    func commandTimeout() async throws {
        let result = try await CommandRunner(timeoutSeconds: 1).run(["/bin/sleep", "60"])
        #expect(result.status == 137)
        #expect(result.stderr.hasSuffix("killed after 1 s"))
    }
}

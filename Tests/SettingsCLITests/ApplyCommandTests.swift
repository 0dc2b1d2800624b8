import SettingsAPI
import SettingsCLI
import SettingsCLICore
import Testing

/// Replies of viper-settings-apply, as it would send them.
enum ApplyFixtures {
    static let now = 1_750_000_000.0

    static let chrony = TargetStatusViewModel(
        target: "chrony",
        description: "NTP servers",
        reads: ["time"],
        destination: "/etc/chrony/conf.d/viper.conf",
        last: TargetOutcomeViewModel(
            target: "chrony",
            destination: "/etc/chrony/conf.d/viper.conf",
            result: "written",
            keys: ["time.ntp.servers"],
            revisions: ["time": 2, "network": 4],
            reload: CommandResultViewModel(status: 0, stderr: ""),
            at: now - 180
        )
    )

    static let resolved = TargetStatusViewModel(
        target: "resolved",
        description: "DNS",
        reads: ["network"],
        destination: "/etc/systemd/resolved.conf",
        last: TargetOutcomeViewModel(
            target: "resolved",
            destination: "/etc/systemd/resolved.conf",
            result: "check-failed",
            keys: ["network.dns.servers"],
            revisions: ["network": 5],
            check: CommandResultViewModel(status: 1, stderr: "line 3: unknown key 'DNSX'\n\u{1B}[2Jgone\n"),
            error: "the check refused the rendered file",
            at: now - 12
        )
    )

    static let motd = TargetStatusViewModel(
        target: "motd",
        description: "",
        reads: ["locale"],
        destination: "/etc/motd",
        last: nil
    )

    static let refused = TargetProblemViewModel(
        file: "/etc/viper-settings/apply.d/bad.json",
        reason: "template bad.mustache: no such file"
    )

    static let healthy = ApplyStatusViewModel(targets: [chrony, motd], problems: [], connected: true, cursor: "time:7")

    static let failing = ApplyStatusViewModel(
        targets: [chrony, resolved, motd],
        problems: [refused],
        connected: true,
        cursor: "network:42"
    )

    static let diff = """
        --- /etc/systemd/resolved.conf
        +++ /etc/systemd/resolved.conf (rendered)
        @@ -1,2 +1,2 @@
         [Resolve]
        -DNS=1.1.1.1
        +DNS=9.9.9.9\tquad9

        """

    static let wouldWrite = TargetOutcomeViewModel(
        target: "resolved",
        destination: "/etc/systemd/resolved.conf",
        result: "would-write",
        keys: ["network.dns.servers"],
        revisions: ["network": 6],
        check: CommandResultViewModel(status: 0, stderr: ""),
        diff: diff
    )

    static let unchanged = TargetOutcomeViewModel(
        target: "chrony",
        destination: "/etc/chrony/conf.d/viper.conf",
        result: "unchanged",
        keys: ["time.ntp.servers"],
        revisions: ["time": 2],
        diff: ""
    )

    static let checkFailed = TargetOutcomeViewModel(
        target: "sshd",
        destination: "/etc/ssh/sshd_config.d/viper.conf",
        result: "check-failed",
        keys: ["network.ssh.port"],
        revisions: ["network": 6],
        check: CommandResultViewModel(status: 255, stderr: "Bad port 'x'\n"),
        error: "the check refused the rendered file",
        diff: "--- a\n+++ a (rendered)\n@@ -1 +1 @@\n-Port 22\n+Port x\n"
    )

    /// A server on a temporary socket that answers one call with `model` as the reply's parameters.
    static func server(replying model: some Encodable) throws -> FakeVarlinkServer {
        FakeVarlinkServer(reply: JSONValue.object(["parameters": try JSONValueEncoder().encode(model)]).serialized())
    }
}

@Suite("apply status and apply --dry-run: rendering")
struct ApplyRendererTests {
    @Test("status names the target being applied now and the targets waiting for it")
    func applyingNow() {
        var report = ApplyFixtures.failing
        report.applying = ApplyingNowViewModel(
            target: "resolved",
            since: ApplyFixtures.now - 42.5,
            waiting: ["chrony", "motd"]
        )
        let lines = ApplyRenderer.render(report, now: ApplyFixtures.now).split(separator: "\n")
        #expect(lines.dropFirst().first == "applying resolved now, for 42 s; waiting for it: chrony, motd")
    }

    @Test("a check a signal ended reads as killed by it, not as a status")
    func checkKilledBySignal() {
        var report = ApplyFixtures.failing
        guard let index = report.targets.firstIndex(where: { $0.last?.check != nil }) else {
            Issue.record("a target with a check in the fixture")
            return
        }
        report.targets[index].last?.check = CommandResultViewModel(status: 139, stderr: "", signal: 11)
        let text = ApplyRenderer.render(report, now: ApplyFixtures.now)
        #expect(text.contains("  check: was killed by signal 11 (SIGSEGV)\n"), "\(text)")
        #expect(!text.contains("status 139"))
    }

    @Test("status: whether the applier follows the daemon, the targets as a table, failures, refused files")
    func status() {
        let text = ApplyRenderer.render(ApplyFixtures.failing, now: ApplyFixtures.now)
        #expect(
            text == """
                viper-settings-apply: following viper-settingsd; last change applied: cursor network:42
                TARGET    DESTINATION                    RESULT        WHEN       REVISIONS
                chrony    /etc/chrony/conf.d/viper.conf  written       3 min ago  network:4, time:2
                resolved  /etc/systemd/resolved.conf     check-failed  12 s ago   network:5
                motd      /etc/motd                      -             never
                resolved: the check refused the rendered file
                  check: failed with status 1
                    line 3: unknown key 'DNSX'
                    \\u{1b}[2Jgone
                refused target files:
                  /etc/viper-settings/apply.d/bad.json: template bad.mustache: no such file
                """
        )
        #expect(
            ApplyRenderer.failure(of: ApplyFixtures.failing)
                == "1 target failed (resolved: check-failed); 1 target file refused"
        )
        #expect(ApplyRenderer.failure(of: ApplyFixtures.healthy) == nil)
    }

    @Test("status shows a failed reload and whether the previous file was reloaded again")
    func reloadFailed() {
        let outcome = TargetOutcomeViewModel(
            target: "resolved",
            destination: "/etc/systemd/resolved.conf",
            result: "reload-failed",
            keys: [],
            revisions: ["network": 5],
            check: CommandResultViewModel(status: 0, stderr: ""),
            reload: CommandResultViewModel(status: 1, stderr: "Job for systemd-resolved.service failed.\n"),
            rollbackReload: CommandResultViewModel(status: 0, stderr: ""),
            at: ApplyFixtures.now - 7200
        )
        let target = TargetStatusViewModel(
            target: "resolved",
            description: "",
            reads: ["network"],
            destination: "/etc/systemd/resolved.conf",
            last: outcome
        )
        let model = ApplyStatusViewModel(targets: [target], problems: [], connected: true, cursor: "network:5")
        #expect(
            ApplyRenderer.render(model, now: ApplyFixtures.now) == """
                viper-settings-apply: following viper-settingsd; last change applied: cursor network:5
                TARGET    DESTINATION                 RESULT         WHEN     REVISIONS
                resolved  /etc/systemd/resolved.conf  reload-failed  2 h ago  network:5
                resolved: the reload failed; the previous file was put back
                  reload: failed with status 1
                    Job for systemd-resolved.service failed.
                  reload of the previous file: passed
                """
        )
        #expect(ApplyRenderer.failure(of: model) == "1 target failed (resolved: reload-failed)")
    }

    @Test("status says when a failed target is tried again, and when a reload was skipped because of --root")
    func retryAndSkippedReload() {
        let failed = TargetStatusViewModel(
            target: "resolved",
            description: "",
            reads: ["network"],
            destination: "/etc/systemd/resolved.conf",
            last: TargetOutcomeViewModel(
                target: "resolved",
                destination: "/etc/systemd/resolved.conf",
                result: "failed",
                keys: [],
                revisions: ["network": 5],
                error: "cannot create a file in /etc/systemd: No space left on device",
                at: ApplyFixtures.now - 3
            ),
            retry: TargetRetryViewModel(attempt: 3, at: ApplyFixtures.now + 4)
        )
        let skipped = TargetStatusViewModel(
            target: "logind",
            description: "",
            reads: ["power"],
            destination: "/img/etc/logind.conf",
            last: TargetOutcomeViewModel(
                target: "logind",
                destination: "/img/etc/logind.conf",
                result: "written",
                keys: [],
                revisions: ["power": 2],
                at: ApplyFixtures.now - 3,
                reloadSkipped: "systemctl reload x was not run"
            )
        )
        let model = ApplyStatusViewModel(
            targets: [failed, skipped],
            problems: [],
            connected: true,
            cursor: "network:5"
        )
        let text = ApplyRenderer.render(model, now: ApplyFixtures.now)
        #expect(
            text.hasSuffix(
                """
                resolved: cannot create a file in /etc/systemd: No space left on device
                  trying again in 4 s (retry 3)
                logind: reload skipped: systemctl reload x was not run
                """
            ),
            "\(text)"
        )
        #expect(ApplyRenderer.failure(of: model) == "1 target failed (resolved: failed)")
    }

    @Test("files written for targets that no longer write them are listed apart, and do not fail the command")
    func leftBehind() {
        let model = ApplyStatusViewModel(
            targets: [],
            problems: [],
            warnings: [
                TargetProblemViewModel(file: "/etc/apply.d/dns.json", reason: "reads network.dns.bogus"),
                TargetProblemViewModel(
                    file: "/etc/systemd/resolved.conf.d/50-viper.conf",
                    reason: "target resolved was removed; the file stays as it is and is no longer updated",
                    writtenFor: "resolved"
                ),
            ],
            connected: true,
            cursor: "network:5"
        )
        let text = ApplyRenderer.render(model, now: ApplyFixtures.now)
        let fix = text.range(of: "target files to fix (applied all the same):\n  /etc/apply.d/dns.json")
        let left = text.range(
            of: "files written for targets that no longer write them (left as they are):\n"
                + "  /etc/systemd/resolved.conf.d/50-viper.conf"
        )
        #expect(fix != nil && left != nil, "\(text)")
        #expect(ApplyRenderer.failure(of: model) == nil)
    }

    @Test("status says when the applier is not connected to the daemon, or has applied nothing yet")
    func disconnected() {
        let model = ApplyStatusViewModel(targets: [], problems: [], connected: false, cursor: nil)
        #expect(
            ApplyRenderer.render(model, now: ApplyFixtures.now)
                == "viper-settings-apply: not connected to viper-settingsd; no change applied yet\nno targets"
        )
        #expect(ApplyRenderer.failure(of: model) == nil)
    }

    @Test("status colours only the text of a cell on a terminal, and cuts long destinations to its width")
    func styled() {
        let text = ApplyRenderer.render(
            ApplyFixtures.failing,
            now: ApplyFixtures.now,
            style: TextStyle(isEnabled: true, columns: 60)
        )
        #expect(text.contains("\u{1B}[31mcheck-failed\u{1B}[0m"))
        #expect(text.contains("…"))
        #expect(!text.contains("\u{1B}[2J"), "an escape sequence from a command's output is shown, not sent")
    }

    @Test("dry run: per target its result, its check and the diff; a summary that nothing was written")
    func dryRun() {
        let model = ApplyDryRunViewModel(
            targets: [ApplyFixtures.unchanged, ApplyFixtures.wouldWrite],
            problems: []
        )
        #expect(
            ApplyRenderer.render(model) == """
                chrony (/etc/chrony/conf.d/viper.conf): unchanged
                  check: none
                resolved (/etc/systemd/resolved.conf): would-write
                  check: passed
                --- /etc/systemd/resolved.conf
                +++ /etc/systemd/resolved.conf (rendered)
                @@ -1,2 +1,2 @@
                 [Resolve]
                -DNS=1.1.1.1
                +DNS=9.9.9.9\tquad9
                dry run: nothing written, nothing reloaded; 2 targets: 1 unchanged, 1 would-write
                """
        )
        #expect(ApplyRenderer.failure(of: model) == nil)
    }

    @Test("dry run: a file whose bytes are as rendered but whose mode or owner is not says what differs")
    func dryRunAttributes() throws {
        var outcome = ApplyFixtures.wouldWrite
        outcome.diff = ""
        outcome.attributes = ["mode 0666 -> 0600", "owner root -> nobody"]
        let model = ApplyDryRunViewModel(targets: [outcome], problems: [])
        #expect(
            ApplyRenderer.render(model) == """
                resolved (/etc/systemd/resolved.conf): would-write
                  mode 0666 -> 0600, owner root -> nobody
                  check: passed
                dry run: nothing written, nothing reloaded; 1 target: 1 would-write
                """
        )
        let json = try JSONValueEncoder().encode(outcome)
        #expect(json["attributes"] == ["mode 0666 -> 0600", "owner root -> nobody"])
        #expect(try JSONValueEncoder().encode(ApplyFixtures.wouldWrite)["attributes"] == nil, "absent: bytes only")
    }

    @Test("dry run: a failing check with its status and standard error, and the refused target files")
    func dryRunFailing() {
        let model = ApplyDryRunViewModel(
            targets: [ApplyFixtures.checkFailed],
            problems: [ApplyFixtures.refused]
        )
        #expect(
            ApplyRenderer.render(model) == """
                sshd (/etc/ssh/sshd_config.d/viper.conf): check-failed
                  the check refused the rendered file
                  check: failed with status 255
                    Bad port 'x'
                --- a
                +++ a (rendered)
                @@ -1 +1 @@
                -Port 22
                +Port x
                refused target files:
                  /etc/viper-settings/apply.d/bad.json: template bad.mustache: no such file
                dry run: nothing written, nothing reloaded; 1 target: 1 check-failed
                """
        )
        #expect(
            ApplyRenderer.failure(of: model)
                == "dry run: 1 target would fail (sshd: check-failed); 1 target file refused"
        )
        let styled = ApplyRenderer.render(model, style: TextStyle(isEnabled: true))
        #expect(styled.contains("\u{1B}[32m+Port x\u{1B}[0m") && styled.contains("\u{1B}[31m-Port 22\u{1B}[0m"))
    }
}

@Suite("settingsctl apply: parsing, the call, exit statuses")
struct ApplyCommandTests {
    static func parse(_ arguments: [String]) throws -> ApplyCommand {
        try #require(try SettingsCtl.parseAsRoot(try CommandLinePreflight.check(arguments)) as? ApplyCommand)
    }

    static func usageStatus(_ arguments: [String]) -> SettingsCLICore.ExitStatus {
        do {
            _ = try SettingsCtl.parseAsRoot(try CommandLinePreflight.check(arguments))
            return .success
        } catch {
            return SettingsCtl.exitStatus(for: error)
        }
    }

    @Test(
        "apply, apply status and apply --dry-run, with --json before or after, and --apply-socket",
        arguments: [
            (["apply"], ApplyAction.status, false, nil),
            (["apply", "status"], .status, false, nil),
            (["--json", "apply", "status"], .status, true, nil),
            (["apply", "--dry-run", "--json"], .dryRun, true, nil),
            (["apply", "--apply-socket", "/tmp/a.sock", "--dry-run"], .dryRun, false, "/tmp/a.sock"),
            (["apply", "--apply-socket=/tmp/a.sock"], .status, false, "/tmp/a.sock"),
        ] as [([String], ApplyAction, Bool, String?)]
    )
    func parsing(arguments: [String], action: ApplyAction, json: Bool, socket: String?) throws {
        let command = try Self.parse(arguments)
        #expect(command.action == action)
        #expect(command.global.json == json)
        #expect(command.applySocket == socket)
        #expect(FastPathParser.invocation(arguments) == nil, "apply is left to settingsctl-full")
    }

    @Test(
        "usage errors exit with 2",
        arguments: [
            ["apply", "status", "--dry-run"], ["apply", "--dry-run", "status"], ["apply", "bogus"],
            ["apply", "--apply-socket="], ["apply", "--apply-socket", ""], ["apply", "status", "status"],
        ]
    )
    func usageErrors(arguments: [String]) {
        #expect(Self.usageStatus(arguments) == .usage)
    }

    @Test("the applier's socket: --apply-socket, else VIPER_SETTINGS_APPLY_SOCKET, else its system socket")
    func socket() throws {
        let environment = SocketLocator(
            environment: { ["VIPER_SETTINGS_APPLY_SOCKET": "/env.sock", "VIPER_SETTINGS_SOCKET": "/daemon"][$0] },
            fileExists: { _ in true }
        )
        let none = SocketLocator(environment: { _ in nil }, fileExists: { _ in true })
        #expect(environment.locateApplier(option: "/flag") == .init(path: "/flag", origin: .applyOption))
        #expect(environment.locateApplier(option: nil) == .init(path: "/env.sock", origin: .applyEnvironment))
        #expect(
            none.locateApplier(option: nil)
                == .init(path: "/run/viper-settings-apply/io.viper.settings.Apply", origin: .applySystem)
        )
        let command = try Self.parse(["--socket", "/daemon", "apply"])
        #expect(command.client(locator: none).location.path == SocketLocator.applySystemPath)
        #expect(command.client(locator: none).peer == .applier)
    }

    @Test("apply status calls Status on the applier's socket and prints the table; exit 0 when all is well")
    func statusHealthy() throws {
        let server = try ApplyFixtures.server(replying: ApplyFixtures.healthy)
        let command = try Self.parse(["apply", "--apply-socket", server.path])
        let text = try command.output(using: command.client(), style: .plain, now: ApplyFixtures.now)
        #expect(text.hasPrefix("viper-settings-apply: following viper-settingsd; last change applied: cursor time:7"))
        #expect(text.contains("chrony  /etc/chrony/conf.d/viper.conf  written  3 min ago  network:4, time:2"))
        #expect(server.finish() == #"{"method":"io.viper.settings.Apply.Status","parameters":{}}"#)
    }

    @Test("apply status exits with 10 after its output when a target failed or a target file was refused")
    func statusFailing() throws {
        let server = try ApplyFixtures.server(replying: ApplyFixtures.failing)
        let command = try Self.parse(["apply", "status", "--apply-socket", server.path])
        let failure = #expect(throws: CLIFailure.self) {
            try command.output(using: command.client(), style: .plain, now: ApplyFixtures.now)
        }
        #expect(failure?.status == .applyFailing)
        #expect(failure?.status.rawValue == 10)
        #expect(failure?.message == "1 target failed (resolved: check-failed); 1 target file refused")
        #expect(failure?.output == ApplyRenderer.render(ApplyFixtures.failing, now: ApplyFixtures.now))
    }

    @Test("apply status exits with 3 after its output when the applier does not follow the daemon")
    func statusDisconnected() throws {
        let model = ApplyStatusViewModel(targets: [], problems: [], connected: false, cursor: nil)
        let server = try ApplyFixtures.server(replying: model)
        let command = try Self.parse(["apply", "status", "--apply-socket", server.path])
        let failure = #expect(throws: CLIFailure.self) {
            try command.output(using: command.client(), style: .plain, now: ApplyFixtures.now)
        }
        #expect(failure?.status.rawValue == 3)
        #expect(failure?.message.hasPrefix("the applier is not connected to viper-settingsd") == true)
        #expect(failure?.output == ApplyRenderer.render(model, now: ApplyFixtures.now))
    }

    @Test("apply --dry-run calls DryRun; exit 0 when every target would apply, 10 when a check fails")
    func dryRun() throws {
        let passing = ApplyDryRunViewModel(targets: [ApplyFixtures.unchanged, ApplyFixtures.wouldWrite], problems: [])
        let server = try ApplyFixtures.server(replying: passing)
        let command = try Self.parse(["apply", "--dry-run", "--apply-socket", server.path])
        #expect(try command.output(using: command.client(), style: .plain) == ApplyRenderer.render(passing))
        #expect(server.finish() == #"{"method":"io.viper.settings.Apply.DryRun","parameters":{}}"#)

        let failing = ApplyDryRunViewModel(
            targets: [ApplyFixtures.wouldWrite, ApplyFixtures.checkFailed],
            problems: []
        )
        let failingServer = try ApplyFixtures.server(replying: failing)
        let failingCommand = try Self.parse(["apply", "--dry-run", "--apply-socket", failingServer.path])
        let failure = #expect(throws: CLIFailure.self) {
            try failingCommand.output(using: failingCommand.client(), style: .plain)
        }
        #expect(failure?.status == .applyFailing)
        #expect(failure?.output?.contains("check: failed with status 255") == true)
    }

    @Test("a target file loaded with a warning is shown apart and fails neither status nor a dry run")
    func warningsDoNotFail() throws {
        let typo = TargetProblemViewModel(
            file: "/etc/viper-settings/apply.d/typo.json",
            reason: "'reads' names network.dsn, which the settings daemon does not have: it renders as empty"
        )
        let status = ApplyStatusViewModel(
            targets: ApplyFixtures.healthy.targets,
            problems: [],
            warnings: [typo, typo],
            connected: true,
            cursor: "time:7"
        )
        #expect(ApplyRenderer.failure(of: status) == nil)
        let text = ApplyRenderer.render(status, now: ApplyFixtures.now)
        #expect(text.contains("target files to fix (applied all the same):\n  /etc/viper-settings/apply.d/typo.json:"))
        #expect(!text.contains("refused"))
        let dryRun = ApplyDryRunViewModel(targets: [ApplyFixtures.unchanged], problems: [], warnings: [typo])
        #expect(ApplyRenderer.failure(of: dryRun) == nil)
        // Refused files are counted as files, not as problems.
        let twice = ApplyDryRunViewModel(targets: [], problems: [ApplyFixtures.refused, ApplyFixtures.refused])
        #expect(ApplyRenderer.failure(of: twice) == "dry run: 1 target file refused")
    }

    @Test("a refused target file alone fails a dry run")
    func dryRunRefused() throws {
        let model = ApplyDryRunViewModel(targets: [ApplyFixtures.unchanged], problems: [ApplyFixtures.refused])
        let server = try ApplyFixtures.server(replying: model)
        let command = try Self.parse(["apply", "--dry-run", "--apply-socket", server.path])
        let failure = #expect(throws: CLIFailure.self) { try command.output(using: command.client(), style: .plain) }
        #expect(failure?.status == .applyFailing)
        #expect(failure?.message == "dry run: 1 target file refused")
    }

    @Test("--json prints the reply as JSON that reads back as the ViewModel, and still exits with 10 on a failure")
    func json() throws {
        let server = try ApplyFixtures.server(replying: ApplyFixtures.healthy)
        let command = try Self.parse(["--json", "apply", "--apply-socket", server.path])
        let output = try command.output(using: command.client(), style: .plain)
        #expect(
            try JSONValueDecoder().decode(ApplyStatusViewModel.self, from: JSONValue(parsing: output))
                == ApplyFixtures.healthy
        )
        #expect(output.contains("\n  "))

        let model = ApplyDryRunViewModel(targets: [ApplyFixtures.checkFailed], problems: [ApplyFixtures.refused])
        let failingServer = try ApplyFixtures.server(replying: model)
        let dryRun = try Self.parse(["apply", "--json", "--dry-run", "--apply-socket", failingServer.path])
        let failure = #expect(throws: CLIFailure.self) { try dryRun.output(using: dryRun.client(), style: .plain) }
        #expect(failure?.status == .applyFailing)
        let printed = try #require(failure?.output)
        #expect(try JSONValueDecoder().decode(ApplyDryRunViewModel.self, from: JSONValue(parsing: printed)) == model)
        let report = try JSONValue(parsing: Array(try #require(failure?.jsonReport).utf8))
        #expect(report["exitStatus"] == 10)
    }

    @Test("an applier that cannot be reached is exit 3, naming the socket and how to check the service")
    func unreachable() throws {
        let path = "/tmp/settingsctl-test-missing/io.viper.settings.Apply"
        let command = try Self.parse(["apply", "--apply-socket", path])
        let failure = #expect(throws: CLIFailure.self) { try command.output(using: command.client(), style: .plain) }
        #expect(failure?.status == .unreachable)
        let message = try #require(failure?.message)
        #expect(
            message.hasPrefix("cannot reach the applier (viper-settings-apply) at \(path) (given with --apply-socket)")
        )
        #expect(message.contains("systemctl status viper-settings-apply"))
        #expect(message.contains("--apply-socket PATH or VIPER_SETTINGS_APPLY_SOCKET=PATH"))
        #expect(!message.contains("viper-settingsd running"))
    }

    @Test("a dry run waits for the checks the applier runs (up to 60 s) and, if it still times out, says it is busy")
    func dryRunWaitsForChecks() throws {
        let command = try Self.parse(["apply", "--dry-run", "--apply-socket", "/tmp/a.sock"])
        let client = command.action.client(for: command.client())
        #expect(client.timeoutSeconds > ApplyAction.checkLimitSeconds + 15, "room for a check of 60 s, and more")
        let failure = client.failure(for: .timedOut)
        #expect(failure.status == .unreachable)
        #expect(
            failure.message.hasPrefix(
                "the applier (viper-settings-apply) at /tmp/a.sock (given with --apply-socket) did not answer within"
                    + " \(client.timeoutSeconds) s: a dry run waits for the targets' checks"
            ),
            "\(failure.message)"
        )
        let status = try Self.parse(["apply", "status", "--apply-socket", "/tmp/a.sock"])
        #expect(status.action.client(for: status.client()).timeoutSeconds == 30, "a status waits for no command")
    }

    @Test("NotReady is exit 3 with the applier's reason")
    func notReady() throws {
        let server = FakeVarlinkServer(
            reply:
                #"{"error":"io.viper.settings.Apply.NotReady","parameters":{"reason":"connecting to viper-settingsd"}}"#
        )
        let command = try Self.parse(["apply", "--apply-socket", server.path])
        let failure = #expect(throws: CLIFailure.self) { try command.output(using: command.client(), style: .plain) }
        #expect(failure?.status == .unreachable)
        #expect(failure?.errorName == "io.viper.settings.Apply.NotReady")
        #expect(
            failure?.message
                == "the applier is not ready: connecting to viper-settingsd"
                + " (systemctl status viper-settings-apply viper-settingsd)"
        )
        #expect(failure?.jsonReport.contains(#""error":"io.viper.settings.Apply.NotReady""#) == true)
    }

    @Test("a socket that does not serve io.viper.settings.Apply (the daemon's, say) is named as such")
    func wrongSocket() throws {
        let server = FakeVarlinkServer(
            reply:
                #"{"error":"org.varlink.service.InterfaceNotFound","parameters":{"interface":"io.viper.settings.Apply"}}"#
        )
        let command = try Self.parse(["apply", "--dry-run", "--apply-socket", server.path])
        let failure = #expect(throws: CLIFailure.self) { try command.output(using: command.client(), style: .plain) }
        #expect(failure?.status == .failure)
        #expect(failure?.message.contains("does not serve io.viper.settings.Apply.DryRun") == true)
        #expect(failure?.message.contains("viper-settings-apply") == true)
    }

    @Test("a dry run refused to a user who is not root is exit 7, naming the applier, not the daemon")
    func dryRunPermissionDenied() throws {
        let server = FakeVarlinkServer(reply: #"{"error":"org.varlink.service.PermissionDenied"}"#)
        let command = try Self.parse(["apply", "--dry-run", "--apply-socket", server.path])
        let failure = #expect(throws: CLIFailure.self) { try command.output(using: command.client(), style: .plain) }
        #expect(failure?.status == .permissionDenied)
        #expect(failure?.message.contains("the applier (viper-settings-apply) runs a dry run for root only") == true)
        let daemon = CLIFailure(errorName: "org.varlink.service.PermissionDenied", parameters: [:])
        #expect(daemon.status == .permissionDenied && daemon.message.contains("the settings daemon"))
    }

    @Test("--help lists apply's exit statuses: 7 for a dry run asked by anyone but root, with 0, 3 and 10")
    func helpExitStatuses() {
        let help = SettingsCtl.helpMessage(for: ApplyCommand.self, columns: 1000)
        #expect(help.contains("\nExit status:\n  0   no target failed and no target file was refused.\n"))
        #expect(help.contains("\n  3   the applier cannot be reached, is not ready yet, or did not\n"))
        #expect(help.contains("\n  7   apply --dry-run by anyone but root: permission denied.\n"))
        #expect(help.contains("\n  10  after the output: a target failed"))
        #expect(help.contains("the applier serves it to root only: anyone else gets exit status 7"))
        let dryRun = help.split(separator: "\n").first { $0.hasPrefix("  --dry-run ") }
        #expect(dryRun?.contains("(root only: it runs the checks)") == true, "\(dryRun ?? "")")
        // The top-level list says it too, as it says what 3 and 10 mean for apply.
        #expect(SettingsCLICore.ExitStatus.permissionDenied.meaning.contains("apply --dry-run: root only"))
    }

    @Test("a reply that does not have the ViewModel's shape is an other failure naming the applier")
    func wrongShape() throws {
        let server = FakeVarlinkServer(reply: #"{"parameters":{"targets":[]}}"#)
        let command = try Self.parse(["apply", "--apply-socket", server.path])
        let failure = #expect(throws: CLIFailure.self) { try command.output(using: command.client(), style: .plain) }
        #expect(failure?.status == .failure)
        #expect(failure?.message.hasPrefix("unexpected reply of the applier to Status") == true)
    }
}

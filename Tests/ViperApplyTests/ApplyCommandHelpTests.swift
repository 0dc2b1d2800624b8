import Testing
import ViperApply

/// `viper-settings-apply --help` (and so its man page) tells each option's default, as the applier resolves it,
/// and the exit statuses, as `viper-settingsd --help` does.
@Suite("viper-settings-apply --help")
struct ApplyCommandHelpTests {
    /// The help text, one option or paragraph per line (wide enough not to wrap).
    static let help = ApplyCommand.helpMessage(columns: 1000)

    @Test(
        "every option with a default says it",
        arguments: [
            ("--targets-dir", "(default: /etc/viper-settings/apply.d)."),
            ("--socket", "(default: $VIPER_SETTINGS_SOCKET, else /run/viper-settings/io.viper.settings)."),
            ("--state-dir", "(default: $STATE_DIRECTORY, else /var/lib/viper-settings-apply)."),
            (
                "--control-socket",
                "(default: $RUNTIME_DIRECTORY/io.viper.settings.Apply, else "
                    + "/run/viper-settings-apply/io.viper.settings.Apply)."
            ),
            ("--log-level", "(default: info)."),
        ]
    )
    func optionDefault(option: String, text: String) throws {
        let line = try #require(Self.help.split(separator: "\n").first { $0.hasPrefix("  \(option) <") })
        #expect(line.hasSuffix(text), "\(line)")
        #expect(line.ranges(of: "(default: ").count == 1, "said once, not also by ArgumentParser: \(line)")
    }

    @Test("without flags or variables, the applier uses the defaults --help shows")
    func defaultsUsed() throws {
        let paths = try ApplyCommand.parse([]).paths(environment: [:])
        #expect(paths.targetsDirectory == "/etc/viper-settings/apply.d")
        #expect(paths.daemonSocket == "/run/viper-settings/io.viper.settings")
        #expect(paths.stateDirectory == "/var/lib/viper-settings-apply")
        #expect(paths.controlSocket == "/run/viper-settings-apply/io.viper.settings.Apply")
        // A variable set to nothing is no variable.
        let empty = ["VIPER_SETTINGS_SOCKET": "", "STATE_DIRECTORY": "", "RUNTIME_DIRECTORY": ""]
        #expect(try ApplyCommand.parse([]).paths(environment: empty) == paths)
    }

    @Test("the variables --help names come before the defaults, the first directory of a list; flags before both")
    func variablesAndFlags() throws {
        let environment = [
            "VIPER_SETTINGS_SOCKET": "/tmp/d.sock", "STATE_DIRECTORY": "/s1:/s2", "RUNTIME_DIRECTORY": "/r1:/r2",
        ]
        let fromEnvironment = try ApplyCommand.parse([]).paths(environment: environment)
        #expect(fromEnvironment.daemonSocket == "/tmp/d.sock")
        #expect(fromEnvironment.stateDirectory == "/s1")
        #expect(fromEnvironment.controlSocket == "/r1/io.viper.settings.Apply")
        let flags = try ApplyCommand.parse([
            "--targets-dir", "/t", "--socket", "/d", "--state-dir", "/s", "--control-socket", "/c",
        ]).paths(environment: environment)
        #expect(flags.targetsDirectory == "/t" && flags.daemonSocket == "/d")
        #expect(flags.stateDirectory == "/s" && flags.controlSocket == "/c")
    }

    @Test("an empty path and a --root that is not a directory are usage errors naming the flag")
    func badPaths() throws {
        for (arguments, message) in [
            (["--socket", ""], "--socket: the path is empty"),
            (["--control-socket", ""], "--control-socket: the path is empty"),
            (["--state-dir", ""], "--state-dir: the path is empty"),
            (["--targets-dir", ""], "--targets-dir: the path is empty"),
            // `--root "$IMAGE"` with IMAGE unset: not the running system.
            (["--root", ""], "--root: the path is empty"),
            (["--root", "relative"], "--root must be absolute"),
            (["--root", "/nonexistent-root"], "--root /nonexistent-root is not a directory"),
            (["--root", "/etc/hostname"], "--root /etc/hostname is not a directory"),
        ] {
            // A validation error: the program's main makes it exit status 2, as for any usage error.
            let error = #expect(throws: (any Error).self) { try ApplyCommand.parse(arguments) }
            #expect(ApplyCommand.message(for: error!).contains(message), "\(arguments)")
        }
        #expect(throws: Never.self) { try ApplyCommand.parse(["--root", "/tmp"]) }
    }

    @Test("the discussion lists the exit statuses")
    func exitStatuses() {
        #expect(Self.help.contains("Exit status:\n  0  stopped gracefully (SIGTERM, SIGINT).\n  1  a failure:"))
        #expect(Self.help.contains("or one another viper-settings-apply holds"))
        #expect(Self.help.contains("\n  2  a usage error.\n"))
    }

    /// The help text with each run of blanks and line breaks as one space: a sentence, wherever it wraps.
    static let words = Self.help.split(whereSeparator: \.isWhitespace).joined(separator: " ")

    @Test("exit status 1 covers a targets directory that cannot be read at start, as README says")
    func exitStatusTargetsDirectory() {
        #expect(Self.words.contains("or a targets directory it cannot read at start. 2 a usage error."))
    }

    @Test("the discussion gives the control socket's limits and the error a connection over them gets")
    func connectionLimits() {
        #expect(Self.words.contains("at most 64 connections at once, 16 per uid"))
        #expect(
            Self.words.contains(
                "a connection over a limit gets io.viper.settings.Apply.TooManyConnections (limit, maximum) as the"
                    + " reply to its first call, then is closed. A connection without a call for 60 s is closed."
            )
        )
    }

    @Test("the discussion says that a stop ends a running check or reload at once")
    func stopEndsCommands() {
        #expect(
            Self.words.contains("SIGTERM and SIGINT stop it: a check or reload command running then is stopped at once")
        )
    }

    @Test("at 80 columns, no line is longer, and wrapped option rows start under their help, not at column 2")
    func wideTerminal() throws {
        let help = ApplyCommand.help(columns: 80)
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.allSatisfy { $0.count <= 80 })
        #expect(help.contains("Exit status:\n  0  stopped gracefully (SIGTERM, SIGINT).\n  1  a failure:"))
        let options = try #require(lines.firstIndex(of: "OPTIONS:"))
        for row in lines[(options + 1)...] where !row.isEmpty {
            #expect(row.hasPrefix("  -") || row.hasPrefix(String(repeating: " ", count: 26)), "\(row)")
        }
        // The one label that leaves a single space before its help.
        #expect(
            help.contains(
                "  --control-socket <path> The socket it serves io.viper.settings.Apply on\n"
                    + String(repeating: " ", count: 26) + "(default:"
            )
        )
    }
}

import Glibc
import Testing
import ViperCommandLine
import ViperDaemon

/// `viper-settingsd --help` (and so its man page) tells the defaults, the exit statuses and the signals.
@Suite("viper-settingsd --help")
struct DaemonCommandHelpTests {
    /// The help text, one option or paragraph per line (wide enough not to wrap).
    static let help = DaemonCommand.helpMessage(columns: 1000)

    @Test(
        "every option says its default",
        arguments: ["--config", "--socket", "--state-dir", "--modules-dir", "--log-level", "--remote"]
    )
    func optionDefault(option: String) throws {
        let line = try #require(Self.help.split(separator: "\n").first { $0.hasPrefix("  \(option) <") })
        #expect(line.contains("(default: "), "\(line)")
    }

    @Test("the discussion lists the exit statuses")
    func exitStatuses() {
        #expect(
            Self.help.contains(
                "Exit status:\n  0  stopped gracefully (SIGTERM, SIGINT), or the one client of a\n     connected socket passed as fd 3 (exec-style activation)\n     left.\n  1  a failure:"
            )
        )
        #expect(Self.help.contains("\n  2  a usage error, or a configuration with an error"))
    }

    @Test("the discussion says what each signal does, SIGHUP naming the keys a reload applies")
    func signals() {
        #expect(Self.help.contains("Signals:\n  SIGTERM, SIGINT  stop gracefully"))
        let keys = DaemonConfiguration.keysAppliedOnReload.joined(separator: ", ")
        #expect(Self.help.contains("  SIGHUP           reload the schemas and the configuration keys a"))
        #expect(Self.help.contains("reload applies: \(keys);"))
    }

    @Test(
        "on a narrow terminal, wrapped rows of the tables start under their text, not at column 0",
        arguments: [40, 60]
    )
    func narrowTerminal(columns: Int) throws {
        let lines = DaemonCommand.help(columns: columns).split(separator: "\n", omittingEmptySubsequences: false)
        for line in lines where line.count > columns {
            #expect(!line.dropFirst(columns).contains(" "), "only a word longer than the line may overflow: \(line)")
        }
        let exit = try #require(lines.firstIndex(of: "Exit status:"))
        let rows = lines[(exit + 1)...].prefix { !$0.isEmpty }
        #expect(rows.count > 5, "the rows were wrapped")
        for row in rows {
            #expect(
                row.hasPrefix("  0  ") || row.hasPrefix("  1  ") || row.hasPrefix("  2  ") || row.hasPrefix("     ")
            )
        }
        let signals = try #require(lines.firstIndex(of: "Signals:"))
        for row in lines[(signals + 1)...].prefix(while: { !$0.isEmpty }) {
            #expect(row.hasPrefix("  SIG") || row.hasPrefix(String(repeating: " ", count: 19)), "\(row)")
        }
    }

    @Test("at 80 columns, no line is longer and the hand-laid tables are kept as written")
    func wideTerminal() {
        let help = DaemonCommand.help(columns: 80)
        #expect(help.split(separator: "\n").allSatisfy { $0.count <= 80 })
        #expect(
            help.contains(
                "Exit status:\n  0  stopped gracefully (SIGTERM, SIGINT), or the one client of a\n     connected socket passed as fd 3 (exec-style activation)\n     left.\n  1  a failure:"
            )
        )
        #expect(help.contains("  SIGHUP           reload the schemas and the configuration keys a\n"))
    }

    @Test("a start error is at error priority for journald (<3> on each line) only when standard error is the journal")
    func journalPriority() {
        var info = stat()
        #expect(fstat(2, &info) == 0)
        let stream = "\(UInt64(info.st_dev)):\(UInt64(info.st_ino))"
        #expect(DaemonCommand.journalPrefixed("a\nb", journalStream: stream) == "<3>a\n<3>b")
        #expect(DaemonCommand.journalPrefixed("a\nb", journalStream: "1:2") == "a\nb", "another stream")
        #expect(DaemonCommand.journalPrefixed("a", journalStream: nil) == "a", "not under systemd")
    }
}

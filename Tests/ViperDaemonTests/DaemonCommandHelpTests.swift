import Testing
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
        #expect(Self.help.contains("Exit status:\n  0  stopped gracefully (SIGTERM, SIGINT).\n  1  a failure:"))
        #expect(Self.help.contains("\n  2  a usage error, or a configuration with an error"))
    }

    @Test("the discussion says what each signal does, SIGHUP naming the keys a reload applies")
    func signals() {
        #expect(Self.help.contains("Signals:\n  SIGTERM, SIGINT  stop gracefully"))
        let keys = DaemonConfiguration.keysAppliedOnReload.joined(separator: ", ")
        #expect(Self.help.contains("  SIGHUP           reload the schemas and the configuration keys a"))
        #expect(Self.help.contains("reload applies: \(keys);"))
    }
}

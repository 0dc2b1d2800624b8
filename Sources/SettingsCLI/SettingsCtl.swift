public import ArgumentParser
import SettingsAPI
import SettingsCLICore

/// `settingsctl`, the View of viper-settings: parses a command, sends it to `viper-settingsd` over its Varlink
/// socket and renders the ViewModel it gets back, as aligned text or, with `--json`, as JSON.
///
/// Run it with ``main()``, which maps every failure to the documented exit statuses (``ExitStatus``).
public struct SettingsCtl: ParsableCommand {
    /// The version `--version` prints after the name: viper-settings' own, as the daemon's and the applier's.
    public static let version = ViperSettingsVersion.current

    public static let configuration = CommandConfiguration(
        commandName: "settingsctl",
        abstract: "Query and change the typed system settings served by viper-settingsd.",
        discussion: Self.discussion,
        version: "settingsctl \(Self.version)",
        subcommands: [
            ModulesCommand.self, ShowCommand.self, GetCommand.self, SetCommand.self, ResetCommand.self,
            ExplainCommand.self, WatchCommand.self, DumpCommand.self, LoadCommand.self, DiffCommand.self,
            StatusCommand.self, SyncCommand.self, ApplyCommand.self,
        ]
    )

    @OptionGroup var global: GlobalOptions

    public init() {}

    /// The help text after the command list: the socket lookup, the exit statuses and examples.
    static var discussion: String {
        let statuses = ExitStatus.allCases.map { "  \($0.rawValue)  \($0.meaning)" }.joined(separator: "\n")
        return """
            Settings are grouped in modules; a key is MODULE.SECTION.ITEM, e.g. network.proxy.port. Each \
            command prints text for people; --json prints the daemon's reply as JSON instead.

            The daemon's socket: --socket PATH, else $\(SocketLocator.environmentVariable), else \
            \(SocketLocator.systemPath) if it exists, else $XDG_RUNTIME_DIR/\(SocketLocator.runtimeDirectorySuffix).

            Exit status:
            \(statuses)

            When the output cannot be written (a full disk, a closed descriptor), the status is 1, also where the \
            command would exit 9 or 10 after its output.

            Environment:
              \(SocketLocator.environmentVariable)  the daemon's socket, when --socket is not given
              \(SocketLocator.applyEnvironmentVariable)  the applier's socket (apply), when --apply-socket is not given
              NO_COLOR  set and not empty: no colour or bold on a terminal
              TERM  dumb: no colour or bold on a terminal
              COLUMNS  the width tables and values are cut to on a terminal, instead of the terminal's

            Examples:
              settingsctl get network.proxy.port
              settingsctl set network.proxy.port 8080
              settingsctl set updates.policy.channels stable,beta
              settingsctl --json show network
              settingsctl apply --dry-run

            Shell completion (modules, keys and values from the daemon): \
            settingsctl --generate-completion-script bash > /etc/bash_completion.d/settingsctl (or zsh, fish).
            """
    }
}

package import ArgumentParser
package import SettingsCLICore

/// `settingsctl status`: what the daemon serves and the state of remote sync.
package struct StatusCommand: SettingsCommand {
    package static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show what the daemon serves and the state of remote sync.",
        discussion: """
            Shows the number of modules and keys, and for remote sync: the source, its state (off, starting, ok \
            or failing), the last success and its age, the remote revision or ETag in force, the last error, \
            when the next attempt is due, and remote values the schemas rejected.

            Examples:
              settingsctl status
              settingsctl --json status
            """
    )

    @OptionGroup package var global: GlobalOptions

    package init() {}

    /// What the command does.
    package var action: CommandAction { .status }
}

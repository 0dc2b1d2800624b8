package import ArgumentParser
package import SettingsCLICore

/// `settingsctl sync`: sync with the remote source now, wait, report what changed.
package struct SyncCommand: SettingsCommand {
    package static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Sync with the remote source now and report what changed.",
        discussion: """
            Asks the daemon to fetch the remote source at once, waits for the attempt to finish, and prints the \
            keys whose effective value changed, then the sync status. Exits 9 when the attempt failed (it prints \
            "sync failed: no value changed", then the status with the error), 7 when you are neither root nor a \
            writer of a module, 1 when remote sync is not configured (whoever asks: that is said before who may \
            sync), and 3 when the daemon stops before the attempt finished (nothing was synced: run it again once \
            the daemon is back).

            Examples:
              settingsctl sync
              settingsctl --json sync
            """
    )

    @OptionGroup package var global: GlobalOptions

    package init() {}

    /// What the command does.
    package var action: CommandAction { .sync }
}

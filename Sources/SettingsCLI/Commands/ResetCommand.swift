package import ArgumentParser
package import SettingsCLICore

/// `settingsctl reset KEY|MODULE`: removes local values so the recommended or default value applies again.
package struct ResetCommand: SettingsCommand {
    package static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Remove the local value of a key, or of every key of a module.",
        discussion: """
            The value recommended by the fleet, or else the schema default, applies again. Prints each key \
            with the value it has now and the layer it comes from. A key the fleet locks is refused (exit 6), \
            as a set of it is: its local value is kept for when the lock lifts. A module is reset whole or not \
            at all: one locked key with a local value leaves every key of it as it was. A key the schema no \
            longer has, whose stored value was kept to come back with it, has that value removed.

            Examples:
              settingsctl reset network.proxy.port
              settingsctl reset network
            """
    )

    @OptionGroup package var global: GlobalOptions

    @Argument(
        help: "A key (network.proxy.port) or a module (network).",
        completion: .daemon(.keyOrModule)
    )
    package var target: String

    package init() {}

    /// What the command does.
    package var action: CommandAction {
        .reset(target: self.target)
    }
}

package import ArgumentParser
package import SettingsCLICore

/// `settingsctl get KEY`: the effective value of a key, alone on its line.
package struct GetCommand: SettingsCommand {
    package static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print the effective value of a key.",
        discussion: """
            Prints the value alone, as people read it (a list of strings as "stable, beta"), and a newline, so \
            that scripts can use it. On a terminal, control characters other than line breaks and tabs are shown \
            escaped; a pipe gets the value as it is. With --json, prints the whole item: the typed value, its \
            layer, its default.

            Examples:
              settingsctl get network.proxy.port
              port=$(settingsctl get network.proxy.port)
              settingsctl --json get updates.policy.channels
            """
    )

    @OptionGroup package var global: GlobalOptions

    @Argument(
        help: "The key, MODULE.SECTION.ITEM, e.g. network.proxy.port.",
        completion: .daemon(.key)
    )
    package var key: String

    package init() {}

    /// What the command does.
    package var action: CommandAction {
        .get(key: self.key)
    }
}

package import ArgumentParser
package import SettingsCLICore

/// `settingsctl modules`: the modules the daemon serves.
package struct ModulesCommand: SettingsCommand {
    package static let configuration = CommandConfiguration(
        commandName: "modules",
        abstract: "List the modules the daemon serves.",
        discussion: """
            Shows one line per module: its name (the first part of its keys), title, number of keys, how many \
            of them are modified (set on this host or by the fleet, even to a value equal to the default), and \
            its revision, which moves on once with every stored change of the module.

            Examples:
              settingsctl modules
              settingsctl --json modules
            """
    )

    @OptionGroup package var global: GlobalOptions

    package init() {}

    /// What the command does.
    package var action: CommandAction {
        .modules
    }
}

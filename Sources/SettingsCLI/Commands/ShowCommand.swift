package import ArgumentParser
package import SettingsCLICore

/// `settingsctl show [MODULE]`: a module's sections and items with their effective values, or every module's.
package struct ShowCommand: SettingsCommand {
    package static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a module's settings, section by section (every module's without MODULE).",
        discussion: """
            Prints the module's title and description, then each section as a heading over its keys, their \
            values and titles; without MODULE, every module so, one after another (with --json, \
            {"modules": [...]}, each as with a MODULE). \(ModuleRenderer.modifiedMarker) marks a value set on this host or by the fleet (so not taken \
            from the schema default, even when it is equal to it); \
            \(ModuleRenderer.lockedMarker) marks a value the fleet mandates, which local changes cannot override.

            Examples:
              settingsctl show network
              settingsctl show
              settingsctl --json show network
            """
    )

    @OptionGroup package var global: GlobalOptions

    @Argument(
        help: "The module, e.g. network (settingsctl modules lists them); every module when left out.",
        completion: .daemon(.module)
    )
    package var module: String?

    package init() {}

    /// What the command does.
    package var action: CommandAction {
        .show(module: self.module)
    }
}

package import ArgumentParser
package import SettingsCLICore

/// `settingsctl diff MODULE [FILE]`: what differs from the defaults, or what loading FILE would change.
package struct DiffCommand: SettingsCommand {
    package static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Show what differs from the defaults in a module, or what loading a file would change.",
        discussion: """
            Without FILE: each key of MODULE whose value is not the schema default: key: default -> value \
            (layer), whether set on this host or by the fleet.

            With FILE (a dump; - for standard input): what `load FILE` would change in MODULE, as load --dry-run \
            prints it, and every value of MODULE that cannot be loaded (then the exit status is that of the \
            first, 4, 5 or 6). Only MODULE's values in the file are considered; --replace as for load.

            Examples:
              settingsctl diff network
              settingsctl diff network network.json
            """
    )

    @OptionGroup package var global: GlobalOptions

    @Flag(help: "With FILE: also show the local values load --replace would remove.")
    package var replace = false

    @Argument(
        help: "The module.",
        completion: .daemon(.module)
    )
    package var module: String

    @Argument(help: "A file as dump writes it; - for standard input.", completion: .file(extensions: ["json"]))
    package var file: String?

    package init() {}

    /// What the command does.
    package var action: CommandAction {
        .diff(module: self.module, file: self.file, replace: self.replace)
    }
}

package import ArgumentParser
package import SettingsCLICore

/// `settingsctl dump [--effective] [MODULE...]`: the local values of modules, as a file `load` reads.
package struct DumpCommand: SettingsCommand {
    package static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print the local values of modules as JSON, the file load reads.",
        discussion: """
            Prints {"modules": {MODULE: {"revision": N, "values": {SECTION.ITEM: VALUE}}}}: the values set on \
            this host (not the defaults, not the fleet's), typed as the schema says, keys sorted. Without a \
            module, every module. --effective adds every key's effective value and the layer it comes from \
            ("effective"); load ignores it. The output is JSON with or without --json.

            Examples:
              settingsctl dump network > network.json
              settingsctl dump > all.json
              settingsctl dump --effective display
            """
    )

    @OptionGroup package var global: GlobalOptions

    @Flag(help: "Also print every key's effective value and its layer.")
    package var effective = false

    @Argument(
        help: "Modules to dump; every module when none is given.",
        completion: .daemon(.module)
    )
    package var modules: [String] = []

    package init() {}

    /// What the command does.
    package var action: CommandAction {
        .dump(modules: self.modules, effective: self.effective)
    }
}

package import ArgumentParser
package import SettingsCLICore

/// `settingsctl explain KEY`: every layer of a key and the one that wins.
package struct ExplainCommand: SettingsCommand {
    package static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Show where a key's value comes from.",
        discussion: """
            Lists the four layers, weakest first: default (the schema), recommended (the fleet), local (this \
            host) and mandatory (the fleet, locked), with each one's value and source; \
            \(ExplainRenderer.winnerMarker) marks the layer that wins, \(ExplainRenderer.absentValue) a layer without \
            a value (a value that reads \(ExplainRenderer.absentValue) is shown as its JSON). Also shows the key's \
            type and allowed values.

            Examples:
              settingsctl explain network.proxy.port
              settingsctl --json explain network.proxy.port
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
        .explain(key: self.key)
    }
}

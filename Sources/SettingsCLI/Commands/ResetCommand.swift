package import ArgumentParser
import SettingsAPI

/// `settingsctl reset KEY|MODULE`: removes local values so the recommended or default value applies again.
package struct ResetCommand: SettingsCommand {
    package static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Remove the local value of a key, or of every key of a module.",
        discussion: """
            The value recommended by the fleet, or else the schema default, applies again. Prints each key \
            with the value it has now and the layer it comes from.

            Examples:
              settingsctl reset network.proxy.port
              settingsctl reset network
            """
    )

    @OptionGroup package var global: GlobalOptions

    @Argument(help: "A key (network.proxy.port) or a module (network).")
    package var target: String

    package init() {}

    package func output(using client: VarlinkClient, style: TextStyle) throws(CLIFailure) -> String {
        let parameters: JSONValue = ["key": .string(self.target)]
        let model = try self.request(client, .reset, parameters, as: ResetResultViewModel.init(json:))
        return self.present(json: model.json) {
            ResetResultRenderer.render(model, target: self.target, style: style)
        }
    }
}

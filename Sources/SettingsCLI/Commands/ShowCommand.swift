package import ArgumentParser
import SettingsAPI

/// `settingsctl show MODULE`: a module's sections and items with their effective values.
package struct ShowCommand: SettingsCommand {
    package static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a module's settings, section by section.",
        discussion: """
            Prints the module's title and description, then each section as a heading over its keys, their \
            values and titles. \(ModuleRenderer.modifiedMarker) marks a value that is not the schema default; \
            \(ModuleRenderer.lockedMarker) marks a value the fleet mandates, which local changes cannot override.

            Examples:
              settingsctl show network
              settingsctl --json show network
            """
    )

    @OptionGroup package var global: GlobalOptions

    @Argument(help: "The module, e.g. network (settingsctl modules lists them).")
    package var module: String

    package init() {}

    package func output(using client: VarlinkClient, style: TextStyle) throws(CLIFailure) -> String {
        let parameters: JSONValue = ["module": .string(self.module)]
        let model = try self.request(client, .showModule, parameters, as: ModuleViewModel.init(json:))
        return self.present(json: model.json) { ModuleRenderer.render(model, style: style) }
    }
}

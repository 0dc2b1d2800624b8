package import ArgumentParser
import SettingsAPI

/// A subcommand that makes one call and renders its reply: it never computes settings itself.
///
/// ``output(using:style:)`` is the whole command, minus the terminal: tests run it against a socket and
/// read the text it returns. ``run()`` gives it the real socket and prints the text.
package protocol SettingsCommand: ParsableCommand {
    /// The global options, declared in each command with `@OptionGroup`.
    var global: GlobalOptions { get }

    /// Calls the daemon through `client` and returns what to print: JSON with `--json`, text otherwise.
    func output(using client: VarlinkClient, style: TextStyle) throws(CLIFailure) -> String
}

extension SettingsCommand {
    package func run() throws {
        print(try self.output(using: self.global.client(), style: .standardOutput))
    }

    /// Calls `method` and reads its reply as a ViewModel with `decode`.
    func request<Model>(
        _ client: VarlinkClient,
        _ method: SettingsMethod,
        _ parameters: JSONValue,
        as decode: (JSONValue) throws(JSONDecodingError) -> Model
    ) throws(CLIFailure) -> Model {
        let reply = try client.call(method, parameters)
        do {
            return try decode(reply)
        } catch {
            throw CLIFailure(.failure, "unexpected reply of the settings daemon to \(method.rawValue): \(error)")
        }
    }

    /// The JSON of a ViewModel with `--json`, else the text `render` makes.
    func present(json: JSONValue, _ render: () -> String) -> String {
        self.global.json ? json.prettyPrinted() : render()
    }
}

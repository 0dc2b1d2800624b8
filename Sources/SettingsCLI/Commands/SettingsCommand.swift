package import ArgumentParser
package import SettingsCLICore

/// A subcommand that makes one call and renders its reply: it never computes settings itself.
///
/// ``output(using:style:)`` is the whole command, minus the terminal: tests run it against a socket and
/// read the text it returns. ``run()`` gives it the real socket and prints the text.
package protocol SettingsCommand: ParsableCommand {
    /// The global options, declared in each command with `@OptionGroup`.
    var global: GlobalOptions { get }

    /// The call the command makes and how its reply is rendered.
    var action: CommandAction { get }

    /// Calls the daemon through `client` and returns what to print: JSON with `--json`, text otherwise.
    func output(using client: VarlinkClient, style: TextStyle) throws(CLIFailure) -> String
}

extension SettingsCommand {
    package func run() throws {
        try StandardStream.output.writeLine(try self.output(using: self.global.client(), style: .standardOutput))
    }

    package func output(using client: VarlinkClient, style: TextStyle) throws(CLIFailure) -> String {
        try self.action.output(using: client, style: style, json: self.global.json)
    }
}

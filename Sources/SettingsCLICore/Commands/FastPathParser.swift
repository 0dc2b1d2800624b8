/// Reads the common, unambiguous command lines without ArgumentParser, so that `settingsctl get KEY` in a shell
/// loop does not pay for ArgumentParser's reflection (about 1 ms of a 2 ms run, measured with callgrind).
///
/// It recognizes exactly: the global options `--json`, `--socket PATH` and `--socket=PATH`, each at most once
/// and anywhere, and a subcommand name followed by exactly its positional arguments, none beginning with `-`
/// unless it is a negative number (`set KEY -1`).
/// Anything else (help, `--version`, `--`, an unknown option, a wrong count) returns `nil`, and ArgumentParser
/// parses the line as usual, with its messages (`settingsctl` hands it to `settingsctl-full` for that, see
/// ``SettingsCtlLauncher``). A test checks that both parsers agree on what this one accepts.
package enum FastPathParser {
    /// A command line this parser read: the action and the global options.
    package struct Invocation: Sendable, Hashable {
        /// The call to make and how to render its reply.
        package var action: CommandAction
        /// `--json`.
        package var json: Bool
        /// `--socket PATH`.
        package var socket: String?

        /// Makes the call on the socket the options and the environment name, and prints the result.
        package func run() throws(CLIFailure) {
            let client = VarlinkClient(location: SocketLocator.live.locate(option: self.socket))
            try StandardStream.output.writeLine(
                try self.action.output(using: client, style: .standardOutput, json: self.json)
            )
        }
    }

    /// What `arguments` (without the program name) ask for, or `nil` to leave them to ArgumentParser.
    ///
    /// It builds no ArgumentParser type, so that running it costs only the parsing.
    package static func invocation(_ arguments: [String]) -> Invocation? {
        var json = false
        var socket: String?
        var positionals: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--json" {
                guard !json else { return nil }
                json = true
            } else if argument == "--socket" {
                guard socket == nil, index < arguments.count else { return nil }
                socket = arguments[index]
                index += 1
            } else if argument.hasPrefix("--socket=") {
                guard socket == nil else { return nil }
                socket = String(argument.dropFirst("--socket=".count))
            } else if argument.hasPrefix("-"), !Self.isNegativeNumber(argument) {
                return nil
            } else {
                positionals.append(argument)
            }
        }
        if let path = socket, path.isEmpty || path.hasPrefix("-") { return nil }
        guard let name = positionals.first,
            let action = Self.action(name, Array(positionals.dropFirst()))
        else { return nil }
        return Invocation(action: action, json: json, socket: socket)
    }

    /// Whether `argument` is a negative number (`-1`, `-0.5`, `-1e3`, `-0x50`, `-inf`, `-nan`, `-1 `): a value, not an
    /// option. What the daemon then refuses as a value (hexadecimal, infinity, not a number) is refused as one (exit 5),
    /// not taken for an unknown option.
    package static func isNegativeNumber(_ argument: String) -> Bool {
        guard argument.hasPrefix("-"), argument.count > 1 else { return false }
        // Blanks after a number are ignored, as the daemon ignores them.
        var text = Substring(argument.dropFirst())
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        let digits = text.utf8
        guard let first = digits.first else { return false }
        if ["inf", "infinity", "nan"].contains(text.lowercased()) { return true }
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) || first == UInt8(ascii: ".") else {
            return false
        }
        if Double("-" + text) != nil { return true }
        return digits.allSatisfy { byte in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-")
        }
    }

    private static func action(_ name: String, _ values: [String]) -> CommandAction? {
        switch (name, values.count) {
        case ("modules", 0): .modules
        case ("show", 0): .show(module: nil)
        case ("show", 1): .show(module: values[0])
        case ("get", 1): .get(key: values[0])
        case ("set", 2): .set(key: values[0], value: values[1])
        case ("reset", 1): .reset(target: values[0])
        case ("explain", 1): .explain(key: values[0])
        case ("status", 0): .status
        case ("sync", 0): .sync
        default: nil
        }
    }
}

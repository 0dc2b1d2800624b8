import SettingsAPI
package import SettingsCLICore

/// Reads a command line before ArgumentParser does, for the cases where ArgumentParser's own answer misleads:
/// an unknown command (it says "2 unexpected arguments"), `help` with an unknown command and no command at all
/// (it prints the help and exits 0), `--socket=` and `--apply-socket=` with an empty path, and a negative number as
/// a value (it takes `-1` for an option).
package enum CommandLinePreflight {
    /// The subcommand names `settingsctl` knows, `help` included.
    package static var commandNames: [String] {
        SettingsCtl.configuration.subcommands.map { $0._commandName } + ["help"]
    }

    /// The options that take a value as the next argument.
    static let optionsWithValues = [
        "--socket", "--apply-socket", "--after", "--if-revision", "--generate-completion-script",
    ]

    /// `arguments`, with the first negative number that stands where a value may stand, and every operand after it,
    /// moved in their order after a `--`, so that ArgumentParser reads the number as a value and names an extra
    /// operand as the unexpected one (`set KEY -5 extra`: `extra`); or a usage failure naming what is wrong.
    package static func check(_ arguments: [String]) throws(CLIFailure) -> [String] {
        var kept: [String] = []
        var numbers: [String] = []
        var command: String?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                return kept + ["--"] + numbers + arguments[index...]
            }
            for option in ["--socket", "--apply-socket"]
            where argument == option + "="
                || (argument == option && (arguments.dropFirst(index).first ?? "").isEmpty)
            {
                throw CLIFailure(.usage, "\(option) needs a path")
            }
            if Self.optionsWithValues.contains(argument), index < arguments.count {
                kept += [argument, arguments[index]]
                index += 1
                continue
            }
            // From the first negative number on, the operands keep their order after the `--`.
            if command != nil, Self.isNegativeNumber(argument) || (!numbers.isEmpty && !argument.hasPrefix("-")) {
                numbers.append(argument)
                continue
            }
            if !argument.hasPrefix("-") {
                if command == nil {
                    command = argument
                    guard Self.commandNames.contains(argument) else { throw Self.unknownCommand(argument) }
                } else if command == "help", !Self.commandNames.contains(argument) {
                    throw Self.unknownCommand(argument)
                }
            }
            kept.append(argument)
        }
        let standalone = kept.contains {
            ["-h", "--help", "--version"].contains($0) || $0.hasPrefix("--generate-") || $0.hasPrefix("--experimental-")
        }
        if command == nil, !standalone {
            // `settingsctl --bogus`: the option is what is wrong, not only the missing command.
            let global = ["--socket", "--apply-socket", "--json"]
            if let unknown = kept.first(where: { argument in
                argument.hasPrefix("-") && !global.contains(String(argument.prefix { $0 != "=" }))
            }) {
                throw CLIFailure(
                    .usage,
                    "unknown option '\(unknown)', and a command is required (settingsctl --help lists the commands)"
                )
            }
            throw CLIFailure(.usage, "a command is required (settingsctl --help lists the commands)")
        }
        return numbers.isEmpty ? kept : kept + ["--"] + numbers
    }

    /// Whether `argument` is a negative number (`-1`, `-0.5`, `-1e3`), a value rather than an option.
    package static func isNegativeNumber(_ argument: String) -> Bool {
        FastPathParser.isNegativeNumber(argument)
    }

    /// The failure for an unknown command, with the closest known name when one is close.
    static func unknownCommand(_ name: String) -> CLIFailure {
        let closest = Self.commandNames.filter { $0 != "help" }
            .map { (name: $0, distance: ClosestName.editDistance($0, name)) }
            .min { $0.distance < $1.distance }
        var message = "unknown command '\(name)'"
        if let closest, closest.distance <= 2 || closest.name.hasPrefix(name) {
            message += "; did you mean '\(closest.name)'?"
        }
        return CLIFailure(.usage, message + " (settingsctl --help lists the commands)")
    }

}

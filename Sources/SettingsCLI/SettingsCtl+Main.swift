import ArgumentParser
import Glibc
import SettingsAPI
package import SettingsCLICore
import ViperPOSIX

extension SettingsCtl {
    /// Runs `settingsctl` with the process's arguments and exits with a documented ``ExitStatus``.
    public static func main() {
        Self.main(nil)
    }

    /// Runs `settingsctl` with `arguments` (the process's when `nil`) and exits with a documented ``ExitStatus``:
    /// usage errors exit with 2, not ArgumentParser's 64; a failure prints `settingsctl: MESSAGE` on standard
    /// error; help and the version go to standard output. Common command lines skip ArgumentParser
    /// (see `FastPathParser`).
    public static func main(_ arguments: [String]?) {
        StandardDescriptors.reserve()
        let arguments = arguments ?? Array(CommandLine.arguments.dropFirst())
        do {
            if let invocation = FastPathParser.invocation(arguments) {
                try invocation.run()
            } else {
                var command = try Self.parseAsRoot(try CommandLinePreflight.check(arguments))
                try command.run()
            }
            Glibc.exit(ExitStatus.success.rawValue)
        } catch let failure as CLIFailure {
            Glibc.exit(failure.emit(json: CLIFailure.wantsJSON(arguments)).rawValue)
        } catch {
            let status = Self.exitStatus(for: error)
            var message = Self.usageHint(Self.message(for: error), arguments: arguments)
            if status == .success, BashCompletionScript.isRequested(by: arguments) {
                message = BashCompletionScript.literal(message)
            } else if status != .success {
                // ArgumentParser repeats the arguments it refuses as they were given: a terminal escape in one
                // would act on the terminal.
                message = QuotedText.escapingArguments(in: message, arguments: arguments)
            }
            if status == .success {
                do {
                    if !message.isEmpty { try StandardStream.output.writeLine(message) }
                } catch {
                    Glibc.exit(error.emit(json: false).rawValue)
                }
            } else if CLIFailure.wantsJSON(arguments) {
                // One JSON object on standard error, as for every other failure with --json: ArgumentParser's
                // error line, without its usage.
                Glibc.exit(Self.usageFailure(status, message).emit(json: true).rawValue)
            } else if !message.isEmpty {
                // One prefix for every failure: ArgumentParser's "Error: " becomes "settingsctl: ".
                let text = message.hasPrefix("Error: ") ? "settingsctl: " + message.dropFirst("Error: ".count) : message
                StandardStream.error.write(text + "\n")
            }
            Glibc.exit(status.rawValue)
        }
    }

    /// The exit status for an error thrown while parsing or running a command.
    ///
    /// Failures of the call keep their status; ArgumentParser's usage errors (exit code 64) become
    /// ``ExitStatus/usage``; help and `--version` are ``ExitStatus/success``; anything else is
    /// ``ExitStatus/failure``.
    package static func exitStatus(for error: any Error) -> ExitStatus {
        switch error {
        case let failure as CLIFailure: return failure.status
        default:
            let code = Self.exitCode(for: error)
            if code == .validationFailure { return .usage }
            return code.isSuccess ? .success : ExitStatus(rawValue: code.rawValue) ?? .failure
        }
    }

    /// `message` with a hint when an argument that begins with '-' was taken for an option, so that the value it
    /// was meant to be is missing (`set KEY -x`): such a value goes after `--`.
    package static func usageHint(_ message: String, arguments: [String]) -> String {
        // The last such argument that is none of settingsctl's options: `--socket PATH` before the command is one.
        guard message.contains("Missing expected argument"),
            let dashed = arguments.prefix(while: { $0 != "--" }).last(where: {
                $0.hasPrefix("-") && !FastPathParser.isNegativeNumber($0)
                    && !Self.optionNames.contains(String($0.prefix { $0 != "=" }))
            })
        else { return message }
        let lines = message.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        let first = "\(lines[0]) ('\(dashed)' was read as an option: put -- before a value that begins with '-')"
        return ([first] + lines.dropFirst().map(String.init)).joined(separator: "\n")
    }

    /// The options settingsctl reads before or after a command: an argument spelled so is not a value that was
    /// meant.
    private static let optionNames: Set<String> = [
        "--socket", "--apply-socket", "--json", "--help", "-h", "--version", "--after", "--dry-run", "--replace",
        "--if-revision", "--effective",
    ]

    /// A usage error of ArgumentParser (`Error: Missing expected argument…` and the usage after it) as a failure:
    /// its first line, without the `Error: ` prefix.
    package static func usageFailure(_ status: ExitStatus, _ message: String) -> CLIFailure {
        let first = message.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? message
        let line = first.hasPrefix("Error: ") ? String(first.dropFirst("Error: ".count)) : first
        return CLIFailure(status, line.isEmpty ? "usage error; see settingsctl --help" : line)
    }

    /// What to print for an error: `settingsctl: MESSAGE` for a failure of the call, else ArgumentParser's
    /// text (an error with the usage, the help, the version).
    package static func message(for error: any Error) -> String {
        switch error {
        case let failure as CLIFailure: failure.report
        default: Self.fullMessage(for: error)
        }
    }
}

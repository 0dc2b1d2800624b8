import Glibc
import SettingsAPI
import ViperPOSIX

/// The `settingsctl` executable: it runs the common command lines itself and hands every other one to the full
/// command-line interface, `settingsctl-full`, with the same arguments.
///
/// `settingsctl get KEY` is run in shell loops, so it must start fast. The full interface is built on
/// swift-argument-parser, which links FoundationEssentials, and a static executable that merely links it starts
/// about 0.2 ms later (twice the size, a third more page faults): a seventh of a `get`. So this executable links
/// neither. What ``FastPathParser`` reads (a command and its arguments, `--json`, `--socket`) it runs; anything else
/// (`--help`, `--version`, completions, a usage error) it `exec`s as `settingsctl-full`, found next to this
/// executable or in `../libexec/viper-settings/`, so users see one command with one set of messages.
public enum SettingsCtlLauncher {
    /// The name of the full command-line interface's executable.
    package static let fullExecutableName = "settingsctl-full"

    /// Runs `settingsctl` with the process's arguments; never returns.
    public static func main() -> Never {
        StandardDescriptors.reserve()
        let arguments: [String]
        do {
            arguments = try Self.arguments()
        } catch {
            Glibc.exit(error.emit(json: CLIFailure.wantsJSON(Self.readableArguments())).rawValue)
        }
        guard let invocation = FastPathParser.invocation(arguments) else {
            Self.execFull(arguments)
        }
        do {
            try invocation.run()
            Glibc.exit(ExitStatus.success.rawValue)
        } catch {
            Glibc.exit(error.emit(json: invocation.json).rawValue)
        }
    }

    /// The process's arguments after its name, read from `argv`: `CommandLine.arguments` costs a `get` ~40 µs
    /// more (its lazy set-up), a twentieth of its run.
    ///
    /// An argument that is not valid UTF-8 is refused, not repaired (U+FFFD for each bad byte would store another
    /// value than the one given): as an invalid value (exit 5) when it is the value of `set`, else as a usage
    /// error.
    private static func arguments() throws(CLIFailure) -> [String] {
        var arguments: [String] = []
        arguments.reserveCapacity(Int(CommandLine.argc))
        for index in 1..<max(1, Int(CommandLine.argc)) {
            guard let argument = CommandLine.unsafeArgv[index] else { break }
            guard let text = String(validatingCString: argument) else {
                let shown = Self.showingInvalidBytes(argument)
                guard Self.isValueOfSet(following: arguments), let key = arguments.last else {
                    throw CLIFailure(.usage, "argument \(index) \(shown) is not valid UTF-8")
                }
                throw CLIFailure(
                    .invalidValue,
                    "invalid value \(shown) for \(TableFormatter.printable(key)): it is not valid UTF-8"
                )
            }
            arguments.append(text)
        }
        return arguments
    }

    /// `argument` quoted, each byte that is not UTF-8 written `\xFF` (not U+FFFD, which would hide which byte),
    /// control characters escaped as ``QuotedText`` does, and cut after 100 characters.
    private static func showingInvalidBytes(_ argument: UnsafePointer<CChar>) -> String {
        let bytes = UnsafeBufferPointer(start: argument, count: strlen(argument)).map { UInt8(bitPattern: $0) }
        var text = "\""
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var (offset, shown) = (0, 0)
        while shown < QuotedText.limit {
            shown += 1
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                if scalar == "\"" || scalar == "\\" { text += "\\" }
                text += QuotedText.escaped(scalar) ?? String(scalar)
                offset += encoded.count
            case .error(let length):
                for byte in bytes[offset..<offset + length] { text += "\\x" + String(byte, radix: 16, uppercase: true) }
                offset += length
            case .emptyInput:
                return text + "\""
            }
        }
        return offset == bytes.count ? text + "\"" : text + "\"… (\(bytes.count) bytes)"
    }

    /// Whether the argument after `arguments` would be the value of `set` (`set KEY VALUE`): the command is `set`
    /// and its key is the only operand after it. An operand after the value is an extra one, a usage error.
    ///
    /// Operands are read as ``FastPathParser`` reads them: a word not beginning with `-` but for the path after
    /// `--socket`, a negative number, and every word after `--`.
    package static func isValueOfSet(following arguments: [String]) -> Bool {
        var operands: [String] = []
        var index = 0
        var terminated = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if terminated || !argument.hasPrefix("-") || FastPathParser.isNegativeNumber(argument) {
                operands.append(argument)
            } else if argument == "--" {
                terminated = true
            } else if argument == "--socket" {
                index += 1
            }
        }
        return operands.first == "set" && operands.count == 2
    }

    /// The arguments with invalid UTF-8 repaired: only to find `--json` for the report of a failure.
    private static func readableArguments() -> [String] {
        (1..<max(1, Int(CommandLine.argc))).compactMap { CommandLine.unsafeArgv[$0].map { String(cString: $0) } }
    }

    /// Where `settingsctl-full` may be, for an executable at `executable`: next to it (a build folder), then in
    /// `../libexec/viper-settings/` (an installation: `PREFIX/bin` and `PREFIX/libexec/viper-settings`).
    package static func fullExecutableCandidates(for executable: String) -> [String] {
        let directory = executable.lastIndex(of: "/").map { String(executable[..<$0]) } ?? "."
        return [
            "\(directory)/\(Self.fullExecutableName)",
            "\(directory)/../libexec/viper-settings/\(Self.fullExecutableName)",
        ]
    }

    /// Replaces this process with `settingsctl-full` and `arguments`; exits with a message when it cannot.
    private static func execFull(_ arguments: [String]) -> Never {
        let candidates = Self.fullExecutableCandidates(for: Self.executablePath())
        for path in candidates where access(path, X_OK) == 0 {
            let argv = ["settingsctl"] + arguments
            var pointers = argv.map { strdup($0) }
            pointers.append(nil)
            execv(path, pointers)
            Self.exit(
                with: CLIFailure(.failure, "cannot run \(path): \(SystemErrorText.describe(errno))"),
                arguments: arguments
            )
        }
        Self.exit(
            with: CLIFailure(
                .failure,
                "\(Self.fullExecutableName) is missing (looked for \(candidates.joined(separator: " and "))); "
                    + "it parses every command line but the common ones: reinstall viper-settings"
            ),
            arguments: arguments
        )
    }

    /// Prints `failure` on standard error, as one JSON object when `arguments` ask for JSON (`--json`) and as
    /// `settingsctl: MESSAGE` otherwise, and exits with its status.
    private static func exit(with failure: CLIFailure, arguments: [String]) -> Never {
        Glibc.exit(failure.emit(json: CLIFailure.wantsJSON(arguments)).rawValue)
    }

    /// This executable's path, with symbolic links resolved (`/proc/self/exe`).
    private static func executablePath() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return CommandLine.arguments.first ?? "settingsctl" }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

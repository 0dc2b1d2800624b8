public import ArgumentParser
import Foundation
import Glibc
import SettingsAPI
import ViperPOSIX

/// The command line of a long-running program (viper-settingsd, viper-settings-apply): `--help` laid out for the
/// terminal, so that the tables of its discussion (signals, exit statuses) keep their columns; a usage error is
/// exit status 2, a failure 1.
public protocol ServiceCommand: AsyncParsableCommand {}

extension ServiceCommand {
    /// `--help` as printed for a terminal `columns` wide: the help, each line too long wrapped under the text of its
    /// row (ArgumentParser would start continuation lines at column 0).
    public static func help(columns: Int) -> String {
        HelpLayout.reflow(Self.helpMessage(columns: 10_000), columns: max(columns, 20))
    }

    /// Parses the process's arguments and runs the command; exits 2 on a usage error, 1 on a failure.
    ///
    /// SIGHUP, a reload for both services, is ignored from here until the service that reloads catches it: by
    /// default it would end a service still starting (reading a thousand schemas takes a second), and systemd does
    /// not restart a service a signal ended cleanly.
    public static func start() async {
        signal(SIGHUP, SIG_IGN)
        do {
            var command = try Self.parseAsRoot()
            if var service = command as? Self {
                try await service.run()
            } else {
                try command.run()
            }
        } catch {
            let code = Self.exitCode(for: error)
            if code == .success && Self.fullMessage(for: error) == Self.helpMessage() {
                // --help, laid out here so that the tables keep their columns on a narrow terminal.
                let columns = HelpLayout.terminalWidth(environment: ProcessInfo.processInfo.environment)
                print(Self.help(columns: columns))
                Self.exit(withError: ExitCode.success)
            }
            // --version and the like go to standard output, as ArgumentParser prints them.
            guard !code.isSuccess else { Self.exit(withError: error) }
            // Printed here, not by ArgumentParser: a usage error exits 2, and the arguments it repeats are escaped
            // (a terminal escape in one would act on the terminal).
            let message = QuotedText.escapingArguments(
                in: Self.fullMessage(for: error),
                arguments: Array(CommandLine.arguments.dropFirst())
            )
            if !message.isEmpty { FileHandle.standardError.write(Data((Self.journalPrefixed(message) + "\n").utf8)) }
            Self.exit(withError: ExitCode(code == .validationFailure ? 2 : code.rawValue))
        }
    }

    /// `message` with each line at error priority (`<3>`) when standard error is the journal (`JOURNAL_STREAM` names
    /// its device and inode): journald reads the prefix (`SyslogLevelPrefix=`), and `journalctl -p err` then shows
    /// why the service would not start, which it logs at info otherwise. As it is on a terminal or in a file.
    package static func journalPrefixed(
        _ message: String,
        journalStream: String? = ProcessInfo.processInfo.environment["JOURNAL_STREAM"]
    ) -> String {
        guard StandardDescriptors.isJournalStream(2, journalStream: journalStream) else { return message }
        return message.split(separator: "\n", omittingEmptySubsequences: false).map { "<3>" + $0 }
            .joined(separator: "\n")
    }
}

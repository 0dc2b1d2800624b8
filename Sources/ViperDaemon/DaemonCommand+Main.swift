import ArgumentParser
import Foundation

extension DaemonCommand {
    /// Parses the process's arguments and runs the daemon; exits 2 on a usage error, 1 on a failure.
    public static func start() async {
        do {
            var command = try Self.parseAsRoot()
            if let daemon = command as? DaemonCommand {
                try await daemon.run()
            } else {
                try command.run()
            }
        } catch {
            let code = Self.exitCode(for: error)
            guard code == .validationFailure else { Self.exit(withError: error) }
            // ArgumentParser prints nothing for an ExitCode: print the usage error ourselves, then exit 2.
            let message = Self.fullMessage(for: error)
            if !message.isEmpty { FileHandle.standardError.write(Data((message + "\n").utf8)) }
            Self.exit(withError: ExitCode(2))
        }
    }
}

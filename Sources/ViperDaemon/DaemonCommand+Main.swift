import ArgumentParser

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
            Self.exit(withError: code == .validationFailure ? ExitCode(2) : error)
        }
    }
}

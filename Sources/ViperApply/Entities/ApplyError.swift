/// What went wrong loading a target or applying one, with a message a user can act on.
public enum ApplyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A target file is not usable: its path and why.
    case badTarget(file: String, reason: String)
    /// The targets directory cannot be read (missing, not a directory): its path and the system's reason.
    case targetsDirectory(path: String, reason: String)
    /// A file operation on the destination (or its temporary file) failed.
    case file(path: String, operation: String, reason: String)
    /// The check command changed the temporary file it was given: `change` says how.
    case checkChangedFile(command: String, change: String)
    /// A command could not be started.
    case command(command: String, reason: String)
    /// A command was stopped (SIGTERM to its process group, SIGKILL after a grace) because the applier stops.
    case interrupted(command: String)
    /// The settings daemon refused or broke the Watch stream.
    case daemon(String)
    /// A dry run cannot render from the daemon's current values now: why (not connected to the daemon, its values
    /// not received yet).
    case notReady(String)
    /// The applier's state file could not be read or written.
    case state(path: String, reason: String)
    /// Another applier holds the lock on the state directory.
    case stateDirectoryInUse(path: String)
    /// A template would render far more than a destination may hold: why (``RenderBudget``).
    case renderTooLarge(String)
    /// A target reads modules the settings daemon does not serve (a schema removed or rejected, a typo): it is not
    /// rendered, since every value of them would be blank in a system file.
    case notServed(modules: [String])

    public var description: String {
        switch self {
        case .badTarget(let file, let reason): "\(file): \(reason)"
        case .targetsDirectory(let path, let reason):
            "cannot read the targets directory \(path) (--targets-dir): \(reason)"
        case .file(let path, let operation, let reason): "cannot \(operation) \(path): \(reason)"
        case .checkChangedFile(let command, let change):
            "the check command changed the file it checks (\(change)): the destination is untouched; a check must only"
                + " read {file} (check: \(command))"
        case .command(let command, let reason): "cannot run \(command): \(reason)"
        case .interrupted(let command):
            "\(command) was stopped before it ended: the applier is stopping; the target is applied again at its next"
                + " start"
        case .daemon(let message): "settings daemon: \(message)"
        case .notReady(let reason): reason
        case .state(let path, let reason): "state file \(path): \(reason)"
        case .stateDirectoryInUse(let path):
            "the state directory \(path) is in use by another viper-settings-apply (it holds the directory's lock);"
                + " stop that applier, or give this one another state directory (--state-dir)"
        case .renderTooLarge(let reason): reason
        case .notServed(let modules):
            "the settings daemon does not serve module \(modules.joined(separator: ", ")) (no schema, or state files it"
                + " cannot use: settingsctl status says which): the file keeps what it holds until it does"
        }
    }
}

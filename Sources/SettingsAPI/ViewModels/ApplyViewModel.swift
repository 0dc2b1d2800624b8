/// The methods of `io.viper.settings.Apply`, served by viper-settings-apply on its own socket.
public enum ApplyMethod: String, Sendable, CaseIterable {
    case status = "Status"
    case dryRun = "DryRun"

    /// The interface that declares these methods.
    public static let interface = "io.viper.settings.Apply"

    /// The fully qualified name, e.g. `io.viper.settings.Apply.Status`.
    public var qualifiedName: String { "\(Self.interface).\(self.rawValue)" }

    /// The IDL text of `io.viper.settings.Apply`.
    public static let interfaceDescription = String(
        decoding: PackageResources.io_viper_settings_Apply_varlink,
        as: UTF8.self
    )

    /// The error `NotReady`.
    public static let notReady = "\(Self.interface).NotReady"

    /// The error `TooManyConnections`, the reply to the first call of a connection over a limit.
    public static let tooManyConnections = "\(Self.interface).TooManyConnections"
}

/// A command's exit status and the end of its standard error.
public struct CommandResultViewModel: Sendable, Hashable, Codable {
    public var status: Int32
    public var stderr: String
    /// The signal that ended the command, when one did (`status` is then 128 + its number); absent otherwise.
    public var signal: Int32?

    public init(status: Int32, stderr: String, signal: Int32? = nil) {
        self.status = status
        self.stderr = stderr
        self.signal = signal
    }

    /// How the command ended, after its name: `exited with status 3`, or `was killed by signal 11 (SIGSEGV)` (a
    /// command that exits 139 itself is not said to have crashed).
    public var ending: String {
        guard let signal = self.signal else { return "exited with status \(self.status)" }
        let names = Self.signalNames
        let name = signal > 0 && Int(signal) < names.count ? " (SIG\(names[Int(signal)]))" : ""
        return "was killed by signal \(signal)\(name)"
    }

    /// Linux's names of the standard signals, by number.
    private static let signalNames = [
        "", "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV", "USR2", "PIPE", "ALRM",
        "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG", "XCPU", "XFSZ", "VTALRM", "PROF",
        "WINCH", "IO", "PWR", "SYS",
    ]
}

/// What applying a target did, or a dry run would do.
public struct TargetOutcomeViewModel: Sendable, Hashable, Codable {
    public var target: String
    public var destination: String
    /// `unchanged`, `written`, `would-write`, `check-failed`, `reload-failed` or `failed`.
    public var result: String
    public var keys: [String]
    public var revisions: [String: Int64]
    public var check: CommandResultViewModel?
    public var reload: CommandResultViewModel?
    public var rollbackReload: CommandResultViewModel?
    public var error: String?
    public var diff: String?
    /// Seconds since the epoch.
    public var at: Double?
    /// Why the reload command was not run after the file was written (`--root` without `--run-reloads`).
    public var reloadSkipped: String?
    /// Dry run: what would change besides the bytes (`mode 0666 -> 0600`, `owner root -> nobody`, `group root ->
    /// nogroup`, `symbolic link -> regular file`); absent when nothing else would.
    public var attributes: [String]?

    public init(
        target: String,
        destination: String,
        result: String,
        keys: [String],
        revisions: [String: Int64],
        check: CommandResultViewModel? = nil,
        reload: CommandResultViewModel? = nil,
        rollbackReload: CommandResultViewModel? = nil,
        error: String? = nil,
        diff: String? = nil,
        at: Double? = nil,
        reloadSkipped: String? = nil,
        attributes: [String]? = nil
    ) {
        self.target = target
        self.destination = destination
        self.result = result
        self.keys = keys
        self.revisions = revisions
        self.check = check
        self.reload = reload
        self.rollbackReload = rollbackReload
        self.error = error
        self.diff = diff
        self.at = at
        self.reloadSkipped = reloadSkipped
        self.attributes = attributes
    }
}

/// One target and its last outcome.
public struct TargetStatusViewModel: Sendable, Hashable, Codable {
    public var target: String
    public var description: String
    public var reads: [String]
    public var destination: String
    public var last: TargetOutcomeViewModel?
    /// When the last apply failed in a way that can heal by itself: the next attempt.
    public var retry: TargetRetryViewModel?

    public init(
        target: String,
        description: String,
        reads: [String],
        destination: String,
        last: TargetOutcomeViewModel?,
        retry: TargetRetryViewModel? = nil
    ) {
        self.target = target
        self.description = description
        self.reads = reads
        self.destination = destination
        self.last = last
        self.retry = retry
    }
}

/// The next attempt at a target whose last apply failed in a way that can heal by itself (a write or a reload).
public struct TargetRetryViewModel: Sendable, Hashable, Codable {
    /// The number of the attempt to come: 1 for the first retry.
    public var attempt: Int
    /// When it is due, in seconds since the epoch.
    public var at: Double

    public init(attempt: Int, at: Double) {
        self.attempt = attempt
        self.at = at
    }
}

/// A target file that could not be loaded, or one with something to fix; or a file the applier wrote that no target
/// writes any more (`writtenFor`).
public struct TargetProblemViewModel: Sendable, Hashable, Codable {
    public var file: String
    public var reason: String
    /// Set for a file the applier wrote that no target writes any more (its target was removed or refused, or
    /// writes another destination): the target it was written for. The file is left as it is, no longer updated.
    public var writtenFor: String?

    public init(file: String, reason: String, writtenFor: String? = nil) {
        self.file = file
        self.reason = reason
        self.writtenFor = writtenFor
    }
}

/// The reply of `Status`.
public struct ApplyStatusViewModel: Sendable, Hashable, Codable {
    public var targets: [TargetStatusViewModel]
    /// Target files refused: not applied.
    public var problems: [TargetProblemViewModel]
    /// Target files loaded and applied, with something to fix (a `reads` entry the daemon does not have), and files
    /// the applier wrote that no target writes any more (``TargetProblemViewModel/writtenFor``).
    public var warnings: [TargetProblemViewModel]
    public var connected: Bool
    public var cursor: String?
    /// The target being applied now; `nil` when none is.
    public var applying: ApplyingNowViewModel?

    public init(
        targets: [TargetStatusViewModel],
        problems: [TargetProblemViewModel],
        warnings: [TargetProblemViewModel] = [],
        connected: Bool,
        cursor: String?,
        applying: ApplyingNowViewModel? = nil
    ) {
        self.targets = targets
        self.problems = problems
        self.warnings = warnings
        self.connected = connected
        self.cursor = cursor
        self.applying = applying
    }
}

/// The target being applied now, since when, and the targets waiting for it (targets are applied one at a time).
public struct ApplyingNowViewModel: Sendable, Hashable, Codable {
    public var target: String
    /// In seconds since the epoch.
    public var since: Double
    /// The targets to be applied after it, by name.
    public var waiting: [String]

    public init(target: String, since: Double, waiting: [String]) {
        self.target = target
        self.since = since
        self.waiting = waiting
    }
}

/// The reply of `DryRun`.
public struct ApplyDryRunViewModel: Sendable, Hashable, Codable {
    public var targets: [TargetOutcomeViewModel]
    /// Target files refused: not applied.
    public var problems: [TargetProblemViewModel]
    /// Target files loaded and applied, with something to fix, and files the applier wrote that no target writes
    /// any more.
    public var warnings: [TargetProblemViewModel]

    public init(
        targets: [TargetOutcomeViewModel],
        problems: [TargetProblemViewModel],
        warnings: [TargetProblemViewModel] = []
    ) {
        self.targets = targets
        self.problems = problems
        self.warnings = warnings
    }
}

package import SettingsAPI

/// The exit statuses of `settingsctl`, documented in its `--help` and in README.md.
package enum ExitStatus: Int32, Sendable, CaseIterable {
    case success = 0
    case failure = 1
    case usage = 2
    case unreachable = 3
    case notFound = 4
    case invalidValue = 5
    case locked = 6
    case permissionDenied = 7
    case revisionMismatch = 8
    case syncFailing = 9
    case applyFailing = 10

    /// What the status means, for `--help`.
    package var meaning: String {
        switch self {
        case .success: "success"
        case .failure: "other failure"
        case .usage: "usage error"
        case .unreachable:
            "daemon unreachable, stopping before a sync finished, or refusing more connections (apply: applier "
                + "unreachable or not ready)"
        case .notFound: "no such module or key"
        case .invalidValue: "invalid value"
        case .locked: "key locked"
        case .permissionDenied: "permission denied (apply --dry-run: root only)"
        case .revisionMismatch: "the module changed since the revision given to --if-revision; nothing loaded"
        case .syncFailing: "remote sync failing (sync and status print the state first)"
        case .applyFailing: "apply: a target failed or a target file was refused (printed first)"
        }
    }

    /// The status for an error the daemon declares.
    package init(_ error: SettingsErrorViewModel) {
        switch error {
        case .noSuchModule, .noSuchKey: self = .notFound
        case .invalidValue: self = .invalidValue
        case .keyLocked: self = .locked
        case .permissionDenied: self = .permissionDenied
        case .storageFailure, .syncUnavailable: self = .failure
        case .syncInterrupted: self = .unreachable
        case .revisionMismatch: self = .revisionMismatch
        case .loadRefused(let problems): self = problems.first.map(Self.init(problem:)) ?? .invalidValue
        }
    }

    /// The status for one value a load cannot apply.
    package init(problem: LoadProblemViewModel) {
        switch problem.problem {
        case .noSuchModule, .noSuchKey: self = .notFound
        case .invalidValue: self = .invalidValue
        case .keyLocked: self = .locked
        case .permissionDenied: self = .permissionDenied
        }
    }
}

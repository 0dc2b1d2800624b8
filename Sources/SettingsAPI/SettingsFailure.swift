/// A failure the daemon reports to a client: one of the errors declared in `io.viper.settings`.
///
/// Each case knows its Varlink error name, its parameters, a message a user can act on and the
/// exit code `settingsctl` uses for it.
public enum SettingsFailure: Error, Sendable, Hashable, CustomStringConvertible {
    case noSuchModule(module: String)
    case noSuchKey(key: String)
    case invalidValue(key: String, value: String, reason: String)
    case keyLocked(key: String, source: String)
    case permissionDenied(module: String, uid: Int64, reason: String)
    case storageFailure(module: String, reason: String)
    case syncUnavailable(reason: String)

    /// The interface that declares these errors.
    public static let interface = "io.viper.settings"

    /// The fully qualified Varlink error name.
    public var errorName: String {
        switch self {
        case .noSuchModule: "io.viper.settings.NoSuchModule"
        case .noSuchKey: "io.viper.settings.NoSuchKey"
        case .invalidValue: "io.viper.settings.InvalidValue"
        case .keyLocked: "io.viper.settings.KeyLocked"
        case .permissionDenied: "io.viper.settings.PermissionDenied"
        case .storageFailure: "io.viper.settings.StorageFailure"
        case .syncUnavailable: "io.viper.settings.SyncUnavailable"
        }
    }

    /// The error's data, as declared in the IDL.
    public var parameters: JSONValue {
        switch self {
        case .noSuchModule(let module): ["module": .string(module)]
        case .noSuchKey(let key): ["key": .string(key)]
        case .invalidValue(let key, let value, let reason):
            ["key": .string(key), "value": .string(value), "reason": .string(reason)]
        case .keyLocked(let key, let source): ["key": .string(key), "source": .string(source)]
        case .permissionDenied(let module, let uid, let reason):
            ["module": .string(module), "uid": .int(uid), "reason": .string(reason)]
        case .storageFailure(let module, let reason): ["module": .string(module), "reason": .string(reason)]
        case .syncUnavailable(let reason): ["reason": .string(reason)]
        }
    }

    /// Reads an error reply; `nil` when `name` is not one of ours.
    public init?(errorName name: String, parameters: JSONValue) {
        let text = { (key: String) in parameters[key]?.stringValue ?? "?" }
        switch name {
        case "io.viper.settings.NoSuchModule": self = .noSuchModule(module: text("module"))
        case "io.viper.settings.NoSuchKey": self = .noSuchKey(key: text("key"))
        case "io.viper.settings.InvalidValue":
            self = .invalidValue(key: text("key"), value: text("value"), reason: text("reason"))
        case "io.viper.settings.KeyLocked": self = .keyLocked(key: text("key"), source: text("source"))
        case "io.viper.settings.PermissionDenied":
            self = .permissionDenied(
                module: text("module"),
                uid: parameters["uid"]?.intValue ?? -1,
                reason: text("reason")
            )
        case "io.viper.settings.StorageFailure": self = .storageFailure(module: text("module"), reason: text("reason"))
        case "io.viper.settings.SyncUnavailable": self = .syncUnavailable(reason: text("reason"))
        default: return nil
        }
    }

    /// A message for people.
    public var description: String {
        switch self {
        case .noSuchModule(let module): "no such module: '\(module)' (settingsctl modules lists them)"
        case .noSuchKey(let key): "no such key: '\(key)' (settingsctl show MODULE lists the keys of a module)"
        case .invalidValue(let key, let value, let reason): "invalid value '\(value)' for \(key): \(reason)"
        case .keyLocked(let key, let source): "\(key) is locked by \(source); local changes are refused"
        case .permissionDenied(let module, let uid, let reason):
            "permission denied: uid \(uid) may not change module '\(module)': \(reason)"
        case .storageFailure(let module, let reason): "could not store the change to module '\(module)': \(reason)"
        case .syncUnavailable(let reason): "remote sync is not available: \(reason)"
        }
    }

    /// The exit status `settingsctl` uses for this failure.
    public var exitCode: ExitStatus {
        switch self {
        case .noSuchModule, .noSuchKey: .notFound
        case .invalidValue: .invalidValue
        case .keyLocked: .locked
        case .permissionDenied: .permissionDenied
        case .storageFailure, .syncUnavailable: .failure
        }
    }
}

/// The exit statuses of `settingsctl`, documented in its `--help` and in README.md.
public enum ExitStatus: Int32, Sendable, CaseIterable {
    case success = 0
    case failure = 1
    case usage = 2
    case unreachable = 3
    case notFound = 4
    case invalidValue = 5
    case locked = 6
    case permissionDenied = 7

    /// What the status means, for `--help`.
    public var meaning: String {
        switch self {
        case .success: "success"
        case .failure: "other failure"
        case .usage: "usage error"
        case .unreachable: "daemon unreachable"
        case .notFound: "no such module or key"
        case .invalidValue: "invalid value"
        case .locked: "key locked"
        case .permissionDenied: "permission denied"
        }
    }
}

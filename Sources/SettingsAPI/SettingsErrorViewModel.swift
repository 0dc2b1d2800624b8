/// An error declared in `io.viper.settings`, as the Presenter hands it to the View and the wire carries it: the
/// error's name and its parameters, with the reasons already in words. What a client does with it (a message, an
/// exit status) is the client's business.
public enum SettingsErrorViewModel: Error, Sendable, Hashable {
    /// `schemaFile`: the module's schema file, when the daemon rejected it (the reason the module is not served).
    case noSuchModule(module: String, schemaFile: String? = nil)
    case noSuchKey(key: String)
    case invalidValue(key: String, value: String, reason: String)
    case keyLocked(key: String, source: String)
    case permissionDenied(module: String, uid: Int64, reason: String)
    case storageFailure(module: String, reason: String)
    case syncUnavailable(reason: String)
    case syncInterrupted(reason: String)
    case revisionMismatch(module: String, expected: Int64, actual: Int64)
    case loadRefused(problems: [LoadProblemViewModel])

    /// The fully qualified Varlink error name, e.g. `io.viper.settings.NoSuchKey`.
    public var errorName: String {
        let name =
            switch self {
            case .noSuchModule: "NoSuchModule"
            case .noSuchKey: "NoSuchKey"
            case .invalidValue: "InvalidValue"
            case .keyLocked: "KeyLocked"
            case .permissionDenied: "PermissionDenied"
            case .storageFailure: "StorageFailure"
            case .syncUnavailable: "SyncUnavailable"
            case .syncInterrupted: "SyncInterrupted"
            case .revisionMismatch: "RevisionMismatch"
            case .loadRefused: "LoadRefused"
            }
        return "\(SettingsMethod.interface).\(name)"
    }

    /// The error's parameters, as declared in the IDL.
    public var parameters: JSONValue {
        let parameters =
            switch self {
            case .noSuchModule(let module, let schemaFile): Parameters(module: module, schemaFile: schemaFile)
            case .noSuchKey(let key): Parameters(key: key)
            case .invalidValue(let key, let value, let reason): Parameters(key: key, value: value, reason: reason)
            case .keyLocked(let key, let source): Parameters(key: key, source: source)
            case .permissionDenied(let module, let uid, let reason):
                Parameters(module: module, uid: uid, reason: reason)
            case .storageFailure(let module, let reason): Parameters(module: module, reason: reason)
            case .syncUnavailable(let reason), .syncInterrupted(let reason): Parameters(reason: reason)
            case .revisionMismatch(let module, let expected, let actual):
                Parameters(module: module, expected: expected, actual: actual)
            case .loadRefused(let problems): Parameters(problems: problems)
            }
        return (try? JSONValueEncoder().encode(parameters)) ?? [:]
    }

    /// Reads an error reply; `nil` when `errorName` is not one of ours. A missing parameter reads as "?".
    public init?(errorName: String, parameters json: JSONValue) {
        let prefix = "\(SettingsMethod.interface)."
        guard errorName.hasPrefix(prefix) else { return nil }
        let parameters = (try? JSONValueDecoder().decode(Parameters.self, from: json)) ?? Parameters()
        let module = parameters.module ?? "?"
        let key = parameters.key ?? "?"
        let reason = parameters.reason ?? "?"
        switch errorName.dropFirst(prefix.count) {
        case "NoSuchModule": self = .noSuchModule(module: module, schemaFile: parameters.schemaFile)
        case "NoSuchKey": self = .noSuchKey(key: key)
        case "InvalidValue": self = .invalidValue(key: key, value: parameters.value ?? "?", reason: reason)
        case "KeyLocked": self = .keyLocked(key: key, source: parameters.source ?? "?")
        case "PermissionDenied": self = .permissionDenied(module: module, uid: parameters.uid ?? -1, reason: reason)
        case "StorageFailure": self = .storageFailure(module: module, reason: reason)
        case "SyncUnavailable": self = .syncUnavailable(reason: reason)
        case "SyncInterrupted": self = .syncInterrupted(reason: reason)
        case "RevisionMismatch":
            self = .revisionMismatch(
                module: module,
                expected: parameters.expected ?? -1,
                actual: parameters.actual ?? -1
            )
        case "LoadRefused": self = .loadRefused(problems: parameters.problems ?? [])
        default: return nil
        }
    }

    /// Every parameter of every error, each written once; an error sets the ones the IDL declares for it.
    private struct Parameters: Codable {
        var module: String?
        var key: String?
        var value: String?
        var source: String?
        var uid: Int64?
        var reason: String?
        var expected: Int64?
        var actual: Int64?
        var problems: [LoadProblemViewModel]?
        var schemaFile: String?
    }
}

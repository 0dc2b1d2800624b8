public import SettingsAPI

// The Settings module's contract: every protocol between its parts, and the messages they exchange.

/// A value as a client gave it: typed JSON (from a Varlink client) or text (from the command line).
public enum SettingInput: Sendable, Hashable {
    case json(JSONValue)
    case text(String)
}

/// What a View (one client call) asks the module for.
public enum SettingsViewEvent: Sendable, Hashable {
    case showModule
    case get(path: String)
    case set(path: String, input: SettingInput)
    /// Reset one key, or the whole module when `path` is `nil`.
    case reset(path: String?)
    case explain(path: String)
}

/// What the Presenter hands the View: the reply of one call. `status` and `sync` are the Sync Presenter's, routed
/// through the same View. Indirect: the async frames of a call hold a pointer, not the largest of its cases.
public indirect enum SettingsViewModel: Sendable, Hashable, Encodable {
    case modules(ModuleListViewModel)
    case module(ModuleViewModel)
    case value(ValueViewModel)
    case set(SetResultViewModel)
    case reset(ResetResultViewModel)
    case explain(ExplainViewModel)
    case dump(DumpViewModel)
    case load(LoadResultViewModel)

    /// Encodes the ViewModel of the case: the reply's parameters.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .modules(let model): try model.encode(to: encoder)
        case .module(let model): try model.encode(to: encoder)
        case .value(let model): try model.encode(to: encoder)
        case .set(let model): try model.encode(to: encoder)
        case .reset(let model): try model.encode(to: encoder)
        case .explain(let model): try model.encode(to: encoder)
        case .dump(let model): try model.encode(to: encoder)
        case .load(let model): try model.encode(to: encoder)
        }
    }
}

/// The View of one call, as every module's Presenter sees it when the call fails.
public protocol FailureViewProtocol: Sendable {
    /// Shows a failure of the call, one of the declared errors.
    func display(failure: SettingsErrorViewModel) async
}

/// The View of one call: the reply sink the Settings Presenter talks to.
public protocol SettingsViewProtocol: FailureViewProtocol {
    /// Shows the result of the call.
    func display(_ viewModel: SettingsViewModel) async
}

/// The Presenter: the centre of the module; turns View events into Interactor calls and results into ViewModels.
public protocol SettingsPresenterProtocol: Sendable {
    /// The name of the settings module this Presenter serves (its schema's name), which the Router routes by.
    var moduleName: String { get }
    /// Handles one event from `caller` and answers on `view`.
    func handle(_ event: SettingsViewEvent, caller: Caller, view: any SettingsViewProtocol) async
    /// The module's line in the list of modules.
    func summary() async -> ModuleSummaryViewModel
    /// The ViewModel of a `get` of `path`, when it can be made on the spot (see
    /// ``SettingsInteractorProtocol/resolveNow(path:)``); `nil` otherwise: then ``handle(_:caller:view:)`` answers.
    /// The default is `nil`.
    func valueNow(path: String) -> ValueViewModel?
    /// The module's local values and revision; with `effective`, every key's value and layer too.
    func dump(effective: Bool) async throws(SettingsErrorViewModel) -> ModuleDumpViewModel
    /// Loads values into the module (or previews it, see ``LoadMode``): what changes, and with a preview what
    /// cannot be applied.
    func load(
        _ request: LoadRequest,
        caller: Caller
    ) async throws(SettingsErrorViewModel) -> (module: ModuleLoadViewModel, problems: [LoadProblemViewModel])
}

/// The result of a `set`.
public struct SetOutcome: Sendable, Hashable {
    public var before: ResolvedSetting
    public var after: ResolvedSetting
    /// False when the local layer already held the value: nothing was written.
    public var changed: Bool
    public var revision: Int64
}

/// The result of a `reset`.
public struct ResetOutcome: Sendable, Hashable {
    public var after: [ResolvedSetting]
    public var changed: Bool
    public var revision: Int64
}

/// The Interactor: the module's use cases; validation, locks, authorization, no-op detection, audit.
public protocol SettingsInteractorProtocol: Sendable {
    /// The module's schema.
    var schema: ModuleSchema { get }
    /// Every item resolved against the stored layers, and the revision.
    func resolveAll() async throws(SettingsFailure) -> (settings: [ResolvedSetting], revision: Int64)
    /// One item resolved.
    func resolve(path: String) async throws(SettingsFailure) -> (setting: ResolvedSetting, revision: Int64)
    /// What ``resolve(path:)`` returns, when the stored state is at hand without waiting; `nil` otherwise, and for a
    /// path the schema does not have (``resolve(path:)`` then gives the error). The default is `nil`.
    func resolveNow(path: String) -> (setting: ResolvedSetting, revision: Int64)?
    /// Sets the local value of `path`.
    func set(path: String, input: SettingInput, caller: Caller) async throws(SettingsFailure) -> SetOutcome
    /// Removes the local value of `path`, or of every key when `path` is `nil`.
    func reset(path: String?, caller: Caller) async throws(SettingsFailure) -> ResetOutcome
    /// The local values of the keys the schema has, every key resolved, and the revision.
    func dump() async throws(SettingsFailure) -> ModuleDump
    /// Validates every value of `request`, then (``LoadMode/apply``) stores them all in one durable write that moves
    /// the revision on once, or none: any unknown key, invalid value or locked key, or a caller who may not write the
    /// module, is ``SettingsFailure/loadRefused``, listing each.
    func load(_ request: LoadRequest, caller: Caller) async throws(SettingsFailure) -> LoadOutcome
}

/// The DataManager: shapes a module's sections and items for display.
public protocol SettingsDataManagerProtocol: Sendable {
    /// Groups resolved settings by the schema's sections, in schema order.
    func sections(of schema: ModuleSchema, settings: [ResolvedSetting]) -> [ModuleSection]
}

/// A section with its resolved items, as the DataManager shapes it.
public struct ModuleSection: Sendable, Hashable {
    public var id: String
    public var title: String
    public var settings: [ResolvedSetting]

    public init(id: String, title: String, settings: [ResolvedSetting]) {
        self.id = id
        self.title = title
        self.settings = settings
    }
}

/// Answers who a user is, for the `writers` of a schema. The daemon reads the system's user database.
public protocol AccountDirectory: Sendable {
    /// The uid of the user `name`, or `nil` when there is no such user: a writer named so lets no one write (and
    /// the schema's loading warns about it).
    func userID(named name: String) -> UInt32?
    /// The gid of the group `name`, or `nil` when there is no such group. Membership is never looked up here: it
    /// comes from the caller's credentials (``Caller/groups``).
    func groupID(named name: String) -> UInt32?
    /// The uid the daemon runs as when it is not root, or `nil`: that user may write every module, as root may (a
    /// process running as it can write the state files anyway). It is you for a daemon you run yourself, and the
    /// unit's dynamic user, which no other process has, under systemd.
    var serviceUID: UInt32? { get }
}

extension AccountDirectory {
    /// No user but root writes every module.
    public var serviceUID: UInt32? { nil }
}

extension SettingsInteractorProtocol {
    public func resolveNow(path: String) -> (setting: ResolvedSetting, revision: Int64)? { nil }
}

extension SettingsPresenterProtocol {
    public func valueNow(path: String) -> ValueViewModel? { nil }
}

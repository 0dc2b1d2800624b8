public import SettingsAPI
import Synchronization

/// A request as the transport hands it to the Router.
public enum SettingsRequest: Sendable, Hashable {
    case listModules
    case showModule(String)
    case get(key: String)
    case set(key: String, input: SettingInput)
    /// Reset a key (`module.section.item`) or a whole module (`module`).
    case reset(target: String)
    case explain(key: String)
    case status
    case sync
    /// The local values of modules (every module when empty); with `effective`, every value and its layer.
    case dump(modules: [String], effective: Bool)
    /// Values by module and key within the module; see ``TransferPresenter/load(_:replace:ifRevision:dryRun:caller:on:)``.
    case load(values: [String: [String: JSONValue]], replace: Bool, ifRevision: [String: Int64], dryRun: Bool)
}

/// Finds the module that owns a request and hands it to that module's Presenter; the only place that knows all
/// modules. Its registry can be swapped at once on reload.
public final class SettingsRouter: Sendable {
    private let presenters: Mutex<[String: any SettingsPresenterProtocol]>
    private let sync: (any SyncPresenterProtocol)?
    private let watcher: (any WatchPresenterProtocol)?
    private let stateGeneration: (@Sendable () -> UInt64)?
    private let rejectedSchemaFile: @Sendable (String) -> String?
    /// Keeps calls apart from schema reloads, when given.
    private let reloads: SchemaReloadGate?
    /// How many times the registry was replaced.
    private let replacements = Atomic<UInt64>(0)

    /// Creates a router over the given modules, the status and sync requests when `sync` is given, and watch streams
    /// when `watch` is given.
    ///
    /// `stateGeneration`, when given, is a number that grows whenever the modules' current states (what
    /// ``valueNow(key:)`` reads) may change; the Router then has a ``valueGeneration``. With `reloads`, every call
    /// but `Status`, `Sync` and `Watch` (which wait for nothing of a reload, or see to it themselves) runs outside of
    /// a schema reload, and ``valueNow(key:)`` answers nothing during one. `rejectedSchemaFile` names the schema
    /// file of a module not served because its file was rejected, for the `NoSuchModule` of a call that names it.
    public init(
        presenters: [any SettingsPresenterProtocol],
        sync: (any SyncPresenterProtocol)? = nil,
        watch: (any WatchPresenterProtocol)? = nil,
        stateGeneration: (@Sendable () -> UInt64)? = nil,
        reloads: SchemaReloadGate? = nil,
        rejectedSchemaFile: @escaping @Sendable (String) -> String? = { _ in nil }
    ) {
        self.reloads = reloads
        self.presenters = Mutex(
            Dictionary(presenters.map { ($0.moduleName, $0) }, uniquingKeysWith: { first, _ in first })
        )
        self.sync = sync
        self.watcher = watch
        self.stateGeneration = stateGeneration
        self.rejectedSchemaFile = rejectedSchemaFile
    }

    /// A number that grows whenever ``valueNow(key:)`` may give something new for some key: a change of a module's
    /// state, or a new registry (a reload). What was made from `valueNow` can be reused while it stays the same, if
    /// it was read before. `nil` when the Router is not told of state changes.
    public var valueGeneration: UInt64? {
        // Both counts only grow, so their sum grows when either does.
        self.stateGeneration.map { $0() &+ self.replacements.load(ordering: .acquiring) }
    }

    /// Streams the keys or modules named by `targets` (every module when empty) on `view`, after `cursor` when
    /// given, until the task is cancelled or the client goes away.
    public func watch(targets: [String], after cursor: WatchCursor?, view: any WatchViewProtocol) async {
        guard let watcher = self.watcher else {
            await view.display(failure: .syncUnavailable(reason: "watch is not served"))
            return
        }
        await watcher.watch(targets: targets, after: cursor, view: view)
    }

    /// Replaces the registry, e.g. after the schemas were re-read; calls in flight finish on the old modules.
    public func replace(presenters: [any SettingsPresenterProtocol]) {
        let registry = Dictionary(presenters.map { ($0.moduleName, $0) }, uniquingKeysWith: { first, _ in first })
        self.presenters.withLock { $0 = registry }
        // Counted after the swap: a reader that saw the old count may have used either registry.
        self.replacements.add(1, ordering: .releasing)
    }

    /// The ViewModel of a `get` of `key` when it can be made on the spot, without waiting for storage; `nil` when
    /// it cannot (the module is not loaded yet, or the key is unknown): then ``handle(_:caller:view:)`` answers,
    /// with the error if there is one. Reads are open to every caller, so no caller is needed.
    public func valueNow(key: String) -> ValueViewModel? {
        guard let (module, path) = Self.split(key) else { return nil }
        // Outside of a reload only: its schemas and states do not belong together until it ends.
        let generation = self.reloads?.settledGeneration
        guard self.reloads == nil || generation != nil,
            let presenter = self.presenters.withLock({ $0[module] }),
            let value = presenter.valueNow(path: path)
        else { return nil }
        if let reloads = self.reloads, let generation, !reloads.unchanged(since: generation) { return nil }
        return value
    }

    /// The names of the modules served, sorted.
    public var moduleNames: [String] { self.presenters.withLock { $0.keys.sorted() } }

    /// Routes `request` from `caller` and answers on `view`.
    public func handle(
        _ request: SettingsRequest,
        caller: Caller,
        view: any SettingsViewProtocol & SyncViewProtocol
    ) async {
        switch request {
        case .status, .sync:
            // A sync may wait up to 90 s for its fetch: a reload does not wait for it.
            await self.route(request, caller: caller, view: view)
        default:
            if let reloads = self.reloads {
                await reloads.settled { await self.route(request, caller: caller, view: view) }
            } else {
                await self.route(request, caller: caller, view: view)
            }
        }
    }

    private func route(
        _ request: SettingsRequest,
        caller: Caller,
        view: any SettingsViewProtocol & SyncViewProtocol
    ) async {
        switch request {
        case .listModules:
            let presenters = self.presenters.withLock { Array($0.values) }
            await ModuleListPresenter(presenters: presenters).present(on: view)
        case .showModule(let module):
            await self.dispatch(module: module, event: .showModule, caller: caller, view: view)
        case .get(let key):
            await self.dispatch(key: key, caller: caller, view: view) { .get(path: $0) }
        case .set(let key, let input):
            await self.dispatch(key: key, caller: caller, view: view) { .set(path: $0, input: input) }
        case .reset(let target):
            if target.contains(".") {
                await self.dispatch(key: target, caller: caller, view: view) { .reset(path: $0) }
            } else {
                await self.dispatch(module: target, event: .reset(path: nil), caller: caller, view: view)
            }
        case .explain(let key):
            await self.dispatch(key: key, caller: caller, view: view) { .explain(path: $0) }
        case .dump(let modules, let effective):
            await TransferPresenter(presenters: self.presenters.withLock { $0 })
                .dump(modules: modules, effective: effective, on: view)
        case .load(let values, let replace, let ifRevision, let dryRun):
            await TransferPresenter(presenters: self.presenters.withLock { $0 }).load(
                values,
                replace: replace,
                ifRevision: ifRevision,
                dryRun: dryRun,
                caller: caller,
                on: view
            )
        case .status, .sync:
            guard let sync = self.sync else {
                await view.display(failure: .syncUnavailable(reason: "status and sync are not served"))
                return
            }
            await sync.handle(request == .status ? .status : .sync, caller: caller, view: view)
        }
    }

    private func dispatch(
        module: String,
        event: SettingsViewEvent,
        caller: Caller,
        view: any SettingsViewProtocol
    ) async {
        guard let presenter = self.presenters.withLock({ $0[module] }) else {
            await view.display(failure: .noSuchModule(module: module, schemaFile: self.rejectedSchemaFile(module)))
            return
        }
        await presenter.handle(event, caller: caller, view: view)
    }

    private func dispatch(
        key: String,
        caller: Caller,
        view: any SettingsViewProtocol,
        event: (String) -> SettingsViewEvent
    ) async {
        guard let (module, path) = Self.split(key) else {
            await view.display(failure: .noSuchKey(key: key))
            return
        }
        await self.dispatch(module: module, event: event(path), caller: caller, view: view)
    }

    /// `module.section.item` as its module and its path in the module; `nil` without a dot.
    private static func split(_ key: String) -> (module: String, path: String)? {
        guard let dot = key.utf8.firstIndex(of: UInt8(ascii: ".")) else { return nil }
        return (String(key[..<dot]), String(key[key.index(after: dot)...]))
    }
}

public import Logging
import SettingsAPI

/// The use cases of one module: resolve, set, reset, with validation against the schema, locks, authorization,
/// no-op detection and an audit log entry for every change.
public struct SettingsInteractor: SettingsInteractorProtocol {
    public let schema: ModuleSchema
    let repository: any SettingsRepository
    private let accounts: any AccountDirectory
    /// Bounds the audit entries of refused writes, shared by every module.
    private let refusals: RefusalAuditLimiter
    let logger: Logger

    /// Creates the Interactor of `schema`'s module.
    public init(
        schema: ModuleSchema,
        repository: any SettingsRepository,
        accounts: any AccountDirectory,
        refusals: RefusalAuditLimiter = RefusalAuditLimiter(),
        logger: Logger
    ) {
        self.schema = schema
        self.repository = repository
        self.accounts = accounts
        self.refusals = refusals
        var logger = logger
        logger[metadataKey: "module"] = "\(schema.name)"
        self.logger = logger
    }

    public func resolveAll() async throws(SettingsFailure) -> (settings: [ResolvedSetting], revision: Int64) {
        let state = try await self.loadState()
        return (self.resolveAll(in: state), state.revision)
    }

    public func resolve(path: String) async throws(SettingsFailure) -> (setting: ResolvedSetting, revision: Int64) {
        let (sectionID, item) = try self.item(at: path)
        let state = try await self.loadState()
        return (
            ResolvedSetting(module: self.schema.name, sectionID: sectionID, item: item, state: state), state.revision
        )
    }

    public func resolveNow(path: String) -> (setting: ResolvedSetting, revision: Int64)? {
        guard let (sectionID, item) = try? self.item(at: path),
            let state = self.repository.currentState(of: self.schema.name)
        else { return nil }
        return (
            ResolvedSetting(module: self.schema.name, sectionID: sectionID, item: item, state: state), state.revision
        )
    }

    public func set(path: String, input: SettingInput, caller: Caller) async throws(SettingsFailure) -> SetOutcome {
        let (sectionID, item, key, value) = try self.setTarget(path: path, input: input, caller: caller)
        let module = self.schema.name
        // The key in the module as the schema spells it (`path` is the caller's spelling).
        let stored = key.path
        let (before, after) = try await self.update(caller: caller, method: "Set") { state throws(SettingsFailure) in
            let current = ResolvedSetting(module: module, sectionID: sectionID, item: item, state: state)
            if current.isLocked {
                throw .keyLocked(key: key.description, layer: current.winner)
            }
            guard state.local[stored] != value else { return nil }
            return LocalChange(set: [stored: value], revision: state.revision)
        }
        return self.setOutcome(key: key, item: item, before: before, after: after, caller: caller)
    }

    /// The key a set names, checked (the caller may write it), and the value read by its type.
    @inline(never)  // apart from the async function, as ``setOutcome(key:item:before:after:caller:)``
    private func setTarget(
        path: String,
        input: SettingInput,
        caller: Caller
    ) throws(SettingsFailure) -> (sectionID: String, item: ItemSchema, key: SettingKey, value: SettingValue) {
        let (sectionID, item) = try self.item(at: path)
        let key = SettingKey(module: self.schema.name, section: sectionID, item: item.id)
        try self.authorize(caller, key: key.description, method: "Set")
        do {
            switch input {
            case .json(let json): return (sectionID, item, key, try item.type.value(fromJSON: json))
            case .text(let text): return (sectionID, item, key, try item.type.value(fromText: text))
            }
        } catch {
            throw .invalidValue(key: key.description, value: input.description, reason: error.reason)
        }
    }

    /// What a set did, audited when it changed something. Apart from ``set(path:input:caller:)``: an async
    /// function's frame holds its locals for as long as its task lives (a connection's).
    @inline(never)
    private func setOutcome(
        key: SettingKey,
        item: ItemSchema,
        before: ModuleState,
        after: ModuleState,
        caller: Caller
    ) -> SetOutcome {
        let stored = key.path
        let outcome = SetOutcome(
            before: ResolvedSetting(module: key.module, sectionID: key.section, item: item, state: before),
            after: ResolvedSetting(module: key.module, sectionID: key.section, item: item, state: after),
            // A set changes nothing but this key's local value (and the revision with it): comparing that is
            // comparing the states, without walking a large module's layers.
            changed: before.local[stored] != after.local[stored] || before.revision != after.revision,
            revision: after.revision
        )
        if outcome.changed { self.audit([(outcome.before, outcome.after)], caller: caller) }
        return outcome
    }

    public func reset(path: String?, caller: Caller) async throws(SettingsFailure) -> ResetOutcome {
        var targets: [(sectionID: String, item: ItemSchema)] = []
        if let path {
            if let found = self.schema.entry(at: path) {
                targets = [found]
            } else if try await self.loadState().local[path] == nil {
                throw .noSuchKey(key: "\(self.schema.name).\(path)")
            }
            // Else a key the schema no longer has, whose stored value stays to come back with it: a reset of the key
            // removes that value (audited as a value not in effect).
        }
        try self.authorize(caller, key: path.map { "\(self.schema.name).\($0)" }, method: "Reset")
        let module = self.schema.name
        let schema = self.schema
        let named = targets.first
        let (before, after) = try await self.update(caller: caller, method: "Reset") { state throws(SettingsFailure) in
            // A locked key's local value is the fleet's to keep, as for a set: it comes back when the lock lifts. A
            // locked key without one has nothing to reset: unchanged, as an unlocked key without one.
            if let named {
                let current = ResolvedSetting(
                    module: module,
                    sectionID: named.sectionID,
                    item: named.item,
                    state: state
                )
                if current.isLocked, let path, state.local[path] != nil {
                    throw .keyLocked(key: current.key.description, layer: current.winner)
                }
            } else if path == nil,
                let locked = Self.locked(among: state.local.keys.sorted(), schema: schema, state: state).first
            {
                throw .keyLocked(key: locked.key.description, layer: locked.winner)
            }
            let paths = path.map { [$0] } ?? Array(state.local.keys)
            let removed = Set(paths.filter { state.local[$0] != nil })
            guard !removed.isEmpty else { return nil }
            return LocalChange(remove: removed, revision: state.revision)
        }
        return self.resetOutcome(targets: path == nil ? nil : targets, before: before, after: after, caller: caller)
    }

    /// What a reset did to `targets` (every key of the module when `nil`), audited when it changed something.
    @inline(never)  // apart from the async function, as ``setOutcome(key:item:before:after:caller:)``
    private func resetOutcome(
        targets named: [(sectionID: String, item: ItemSchema)]?,
        before: ModuleState,
        after: ModuleState,
        caller: Caller
    ) -> ResetOutcome {
        let module = self.schema.name
        let targets = named ?? self.schema.sections.flatMap { section in section.items.map { (section.id, $0) } }
        let pairs = targets.map { target in
            (
                ResolvedSetting(module: module, sectionID: target.sectionID, item: target.item, state: before),
                ResolvedSetting(module: module, sectionID: target.sectionID, item: target.item, state: after)
            )
        }
        let changed = before != after
        if changed {
            self.audit(pairs.filter { $0.0.layers != $0.1.layers }, caller: caller)
            self.auditHidden(removed: before.local.filter { after.local[$0.key] == nil }, caller: caller)
        }
        return ResetOutcome(after: pairs.map(\.1), changed: changed, revision: after.revision)
    }

    // MARK: - Helpers

    /// The settings at `paths` (in their order) that the fleet locks in `state`; paths the schema does not have are
    /// skipped.
    static func locked(among paths: [String], schema: ModuleSchema, state: ModuleState) -> [ResolvedSetting] {
        paths.compactMap { path in
            guard let (sectionID, item) = schema.entry(at: path) else { return nil }
            let setting = ResolvedSetting(module: schema.name, sectionID: sectionID, item: item, state: state)
            return setting.isLocked ? setting : nil
        }
    }

    private func resolveAll(in state: ModuleState) -> [ResolvedSetting] {
        self.schema.sections.flatMap { section in
            section.items.map {
                ResolvedSetting(module: self.schema.name, sectionID: section.id, item: $0, state: state)
            }
        }
    }

    func item(at path: String) throws(SettingsFailure) -> (sectionID: String, item: ItemSchema) {
        guard let found = self.schema.entry(at: path) else { throw .noSuchKey(key: "\(self.schema.name).\(path)") }
        return found
    }

    /// Lets root and the module's writers through; logs each denial as an audit entry at notice (at most
    /// ``RefusalAuditLimiter/burst`` a second for one uid). `key` is `nil` for the whole module.
    func authorize(_ caller: Caller, key: @autoclosure () -> String?, method: String) throws(SettingsFailure) {
        let writers = self.schema.writers
        if caller.mayWrite(writers, accounts: self.accounts) { return }
        let key = key()
        self.refusals.logRefusal(
            of: caller,
            method: method,
            key: key,
            "permission denied: uid \(caller.uid) may not \(method.lowercased()) \(key ?? self.schema.name)",
            to: self.logger
        )
        throw .permissionDenied(module: self.schema.name, uid: caller.uid, writers: writers)
    }

    /// Logs a write the fleet's lock refused as an audit entry at notice, as ``authorize(_:key:method:)`` logs one
    /// the writers refuse (at most ``RefusalAuditLimiter/burst`` a second for one uid); any other failure is not.
    func auditLocked(_ failure: SettingsFailure, caller: Caller, method: String) {
        var locked: [(key: String, layer: Layer)] = []
        switch failure {
        case .keyLocked(let key, let layer): locked = [(key, layer)]
        case .loadRefused(let problems):
            for case .keyLocked(let key, let layer) in problems { locked.append((key, layer)) }
        default: break
        }
        guard let first = locked.first else { return }
        let keys = locked.prefix(10).map { "\($0.key) (\($0.layer.rawValue))" }.joined(separator: ", ")
        let more = locked.count > 10 ? " and \(locked.count - 10) more" : ""
        self.refusals.logRefusal(
            of: caller,
            method: method,
            key: locked.count == 1 ? first.key : nil,
            "locked by the fleet: uid \(caller.uid) may not \(method.lowercased()) \(keys)\(more)",
            to: self.logger
        )
    }

    func loadState() async throws(SettingsFailure) -> ModuleState {
        do {
            return try await self.repository.state(of: self.schema.name)
        } catch {
            throw .storageFailure(module: self.schema.name, reason: "\(error)")
        }
    }

    /// Stores the change `decide` computes, with the record of what it did to effective values and who did it.
    ///
    /// `decide` says what changes in the local layer; the revision it gives is replaced here: the module's revision
    /// moves on only when an effective value changes, which the record finds out.
    ///
    /// A change the fleet's lock refuses (`decide` throws ``SettingsFailure/keyLocked(key:layer:)``, or a
    /// ``SettingsFailure/loadRefused(problems:)`` of locked keys) is logged as a refused write, as ``authorize(_:key:method:)``
    /// logs one the writers refuse, with `method`.
    func update(
        caller: Caller,
        method: String,
        _ decide: @escaping @Sendable (ModuleState) throws(SettingsFailure) -> LocalChange?
    ) async throws(SettingsFailure) -> (before: ModuleState, after: ModuleState) {
        let schema = self.schema
        do {
            return try await self.repository.update(module: self.schema.name) { state in
                guard var change = try decide(state) else { return nil }
                // Only the changed keys' layers: applying the change to the whole state would copy its layers and
                // its history.
                let paths = change.set.keys.map { $0 } + change.remove
                let before = state.narrowed(to: paths)
                let changes = SettingChange.changes(
                    in: schema,
                    paths: paths,
                    from: before,
                    to: change.applied(to: before)
                )
                // Every change of the stored values moves the revision, effective or not (a local value pinned to
                // the default, or under a lock): a dump's revision names exactly what it holds, so that
                // `load --if-revision` is a compare-and-set of it, and no revision stands for two states.
                change.revision = state.revision + 1
                change.record = ChangeRecord(
                    revision: change.revision,
                    cause: .client(uid: caller.uid, pid: caller.pid),
                    changes: changes
                )
                return change
            }
        } catch let failure as SettingsFailure {
            self.auditLocked(failure, caller: caller, method: method)
            throw failure
        } catch {
            // The Repository logs a storage failure once, and its recovery: a line per refused write would flood
            // the log while the disk stays full.
            self.logger.debug("could not store a change", metadata: ["error": "\(error)"])
            throw .storageFailure(module: self.schema.name, reason: "\(error)")
        }
    }

    /// Audits the removed local values that were not in effect (the schema does not accept them now, or no longer
    /// has their key): no effective value changed, but a value that would have come back with the schema is gone.
    func auditHidden(removed: [String: SettingValue], caller: Caller) {
        guard self.logger.logLevel <= .notice else { return }
        for (path, value) in removed.sorted(by: { $0.key < $1.key })
        where !Self.accepts(self.schema, path, removed) {
            let key = "\(self.schema.name).\(path)"
            let old = value.logText()
            self.logger.notice(
                "\(key): removed its stored local value \(old), which was not in effect (the schema does not accept it)",
                metadata: [
                    "key": "\(key)",
                    "old_value": "\(old)",
                    "layer": "\(Layer.local.rawValue)",
                    "client_uid": "\(caller.uid)",
                    "client_pid": "\(caller.pid)",
                    "source": "local",
                ]
            )
        }
    }

    func audit(_ changes: [(before: ResolvedSetting, after: ResolvedSetting)], caller: Caller) {
        // The values' texts are made once each, and only when the line is logged.
        guard self.logger.logLevel <= .notice else { return }
        for (before, after) in changes {
            let old = before.value.logText()
            let new = after.value.logText()
            // The same value from another layer (a local value equal to the default set, or removed): say so.
            let message =
                old == new
                ? "\(after.key) is still \(new), now from the \(after.winner.rawValue) layer (it was from the \(before.winner.rawValue) layer)"
                : "\(after.key) changed from \(old) to \(new)"
            self.logger.notice(
                "\(message)",
                metadata: [
                    "key": "\(after.key)",
                    "old_value": "\(old)",
                    "new_value": "\(new)",
                    "old_layer": "\(before.winner.rawValue)",
                    "layer": "\(after.winner.rawValue)",
                    "client_uid": "\(caller.uid)",
                    "client_pid": "\(caller.pid)",
                    "source": "local",
                ]
            )
        }
    }
}

extension SettingInput: CustomStringConvertible {
    public var description: String {
        switch self {
        // A typed value as JSON, a string in quotes: `"80"` is told from `80`; text as it was sent.
        case .json(let json): json.givenText
        case .text(let text): text
        }
    }
}

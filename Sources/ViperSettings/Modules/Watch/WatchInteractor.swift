public import Logging

/// Streams the watched keys: their current values (or the changes after a cursor, from the modules' change
/// histories), then every change as it becomes durable. A watcher never holds up writers: it reads the
/// ``ChangeFeed``, whose bounded backlog turns a slow watcher into a resync.
public struct WatchInteractor: WatchInteractorProtocol {
    private let repository: any SettingsRepository
    private let feed: ChangeFeed
    private let schemas: @Sendable () -> [ModuleSchema]
    private let reloads: SchemaReloadGate
    /// The state directory's history (``WatchCursor/history``): every cursor given out carries it.
    private let history: String?
    private let logger: Logger

    /// Creates the Interactor over the repository whose changes `feed` publishes; `schemas` gives the modules served,
    /// and `reloads` marks the reloads of them: current values are read outside of one. `history` is the state
    /// directory's (``WatchCursor/history``), `nil` when it has none.
    public init(
        repository: any SettingsRepository,
        feed: ChangeFeed,
        schemas: @escaping @Sendable () -> [ModuleSchema],
        reloads: SchemaReloadGate = SchemaReloadGate(),
        history: String? = nil,
        logger: Logger
    ) {
        self.repository = repository
        self.feed = feed
        self.schemas = schemas
        self.reloads = reloads
        self.history = history
        self.logger = logger
    }

    public func watch(
        targets: [String],
        after cursor: WatchCursor?,
        emit: @Sendable (WatchEvent) async throws -> Void
    ) async throws {
        var scope = try WatchScope(
            targets: targets,
            schemas: self.schemas(),
            resumable: Set(cursor?.positions.keys ?? [:].keys)
        )
        try await self.checkRetired(scope)
        // A watch of every module follows the ones a reload adds.
        let subscription = self.feed.subscribe(
            modules: scope.everything ? nil : Set(scope.modules.keys).union(scope.retired)
        )
        defer { subscription.cancel() }
        var position: WatchCursor
        if let cursor, let resumed = try await self.replay(after: cursor, scope: scope, emit: emit) {
            position = resumed
        } else {
            position = try await self.sendCurrent(scope: &scope, emit: emit)
        }
        while let delivery = await subscription.next() {
            try await self.follow(delivery, scope: &scope, cursor: &position, emit: emit)
        }
    }

    /// Tells the watcher what `delivery` brings: changes, or a resync and the current values.
    @inline(never)  // its frame is not held while the watcher waits
    private func follow(
        _ delivery: ChangeFeed.Delivery,
        scope: inout WatchScope,
        cursor position: inout WatchCursor,
        emit: @Sendable (WatchEvent) async throws -> Void
    ) async throws {
        switch delivery {
        case .reset(let module, let cause):
            switch cause {
            case .stateReloaded: try await emit(.resync(reason: .stateReloaded(module: module)))
            case .schemaChangeNotStored: try await emit(.resync(reason: .schemaChangeNotStored(module: module)))
            }
            position = try await self.sendCurrent(scope: &scope, emit: emit)
        case .overflow:
            self.logger.notice("a watcher fell behind; it gets a resync")
            try await emit(.resync(reason: .fellBehind))
            position = try await self.sendCurrent(scope: &scope, emit: emit)
        case .records(let published):
            for item in published {
                if scope.modules[item.module] == nil && !scope.retired.contains(item.module) {
                    // Only a watch of every module hears of a module it does not know: one a reload added (the
                    // current values take the schemas served now, as after every resync).
                    try await emit(.resync(reason: .moduleAdded(module: item.module)))
                    position = try await self.sendCurrent(scope: &scope, emit: emit)
                    continue
                }
                try await self.deliver(item.record, module: item.module, scope: scope, cursor: &position, emit: emit)
            }
        }
    }

    /// Refuses a target no longer served that the module's history does not show: a module never stored (a cursor
    /// can name any module) is `NoSuchModule`, a key none of its recorded changes names is `NoSuchKey`, as for a
    /// module served (and for a key its served module no longer has).
    @inline(never)  // its frame is not held for the whole stream
    private func checkRetired(_ scope: WatchScope) async throws {
        for module in scope.retired.sorted() {
            let state = try await self.state(of: module)
            let known = Set(state.history.records.flatMap { $0.changes.map(\.path) })
            guard state.revision > 0, !known.isEmpty else { throw SettingsFailure.noSuchModule(module: module) }
            for path in (scope.keys[module] ?? []).sorted() where !known.contains(path) {
                throw SettingsFailure.noSuchKey(key: "\(module).\(path)")
            }
        }
        // A key its served module no longer has: its removal must be in the history, as for a module.
        for (module, paths) in scope.retiredKeys.sorted(by: { $0.key < $1.key }) {
            let known = Set(try await self.state(of: module).history.records.flatMap { $0.changes.map(\.path) })
            for path in paths.sorted() where !known.contains(path) {
                throw SettingsFailure.noSuchKey(key: "\(module).\(path)")
            }
        }
    }

    /// Sends what followed `cursor` in every watched module and returns the cursor after it; sends a resync and
    /// returns `nil` when a module's history does not reach back to it, or shows that the cursor was not made from
    /// it (a revision ahead of the module's, a position inside a revision at or past its last change). For a module
    /// no longer served, which has no current values to start over from, that is `NoSuchModule` instead.
    @inline(never)  // its frame is not held for the whole stream
    private func replay(
        after cursor: WatchCursor,
        scope: WatchScope,
        emit: @Sendable (WatchEvent) async throws -> Void
    ) async throws -> WatchCursor? {
        var pending: [(module: String, record: ChangeRecord)] = []
        var position = WatchCursor(history: self.history)
        // Positions in another history say nothing of this one's, whatever revisions they name.
        if let history = cursor.history, history != self.history {
            try await emit(.resync(reason: .otherHistory(history: history, current: self.history)))
            return nil
        }
        if scope.everything, let gone = cursor.positions.keys.sorted().first(where: { scope.modules[$0] == nil }) {
            try await emit(.resync(reason: .moduleRemoved(module: gone)))
            return nil
        }
        for module in scope.resumedModuleNames {
            let state = try await self.state(of: module)
            let history = state.history
            // A module no longer served has no current values to start over from: its watch cannot go on.
            func startOver(_ reason: WatchResyncReason) async throws -> WatchCursor? {
                guard scope.modules[module] != nil else { throw SettingsFailure.noSuchModule(module: module) }
                try await emit(.resync(reason: reason))
                return nil
            }
            if let unusable = await self.repository.unusableState(of: module) {
                return try await startOver(.stateUnusable(module: module, reason: "\(unusable)"))
            }
            guard let start = cursor.positions[module] else {
                // A cursor of a watch of every module lacks only a module added since it was given out.
                return try await startOver(
                    scope.everything ? .moduleAdded(module: module) : .cursorLacksModule(module: module)
                )
            }
            if start.revision > state.revision {
                return try await startOver(.cursorAhead(module: module, revision: state.revision))
            }
            if start.revision == 0, let index = start.index {
                // Revision 0 changed nothing: no position inside it was ever given out.
                return try await startOver(.noSuchPosition(module: module, revision: 0, index: index, changes: 0))
            }
            guard let records = history.records(after: start.revision),
                start.index == nil || history.record(at: start.revision) != nil
            else {
                return try await startOver(.historyTooShort(module: module))
            }
            // A watcher applies what it is told: a value the schema now rejects (a state file edited by hand, a
            // schema changed since) is never served, so it is never replayed either.
            if let schema = scope.modules[module],
                let key = Self.firstRejectedKey(
                    in: records.map(\.changes) + [
                        start.index.flatMap { _ in history.record(at: start.revision)?.changes } ?? []
                    ],
                    schema: schema,
                    watched: { scope.includes(module: module, path: $0) }
                )
            {
                return try await startOver(.historyRejected(module: module, key: key))
            }
            if let index = start.index, let record = history.record(at: start.revision) {
                // The daemon writes `R.I` only inside a revision, before its last change: any other position was
                // never given out for this history.
                guard index < record.changes.count - 1 else {
                    return try await startOver(
                        .noSuchPosition(
                            module: module,
                            revision: start.revision,
                            index: index,
                            changes: record.changes.count
                        )
                    )
                }
                pending.append((module, record))
            }
            position.positions[module] = start
            pending += records.map { (module, $0) }
        }
        for item in pending {
            try await self.deliver(item.record, module: item.module, scope: scope, cursor: &position, emit: emit)
        }
        try await emit(.ready(cursor: position))
        return position
    }

    /// The first watched key whose old or new value in `changes` (what a watcher is told the key held and holds)
    /// the schema rejects; `nil` when it accepts every one (keys the schema no longer has are left out: their removal
    /// follows in the history; keys not `watched` are not sent).
    static func firstRejectedKey(
        in changes: [[SettingChange]],
        schema: ModuleSchema,
        watched: (String) -> Bool
    ) -> String? {
        for change in changes.joined() where watched(change.path) {
            guard let item = schema.item(at: change.path) else { continue }
            for value in [change.old, change.new] {
                guard let value else { continue }
                if (try? item.type.checked(value)) == nil { return "\(schema.name).\(change.path)" }
            }
        }
        return nil
    }

    /// Brings `scope` to the schemas served now, before the current values are sent again: those of a reload
    /// since the watch began resolve them (a watch of every module also takes the modules a reload added).
    private func refresh(_ scope: inout WatchScope) throws(SettingsFailure) {
        if scope.everything {
            scope = try WatchScope(targets: [], schemas: self.schemas())
        } else {
            scope.refresh(from: self.schemas())
        }
    }

    /// Brings `scope` to the schemas served now, then sends the current value of every watched key, then `ready`;
    /// returns the cursor of that state. The schemas and the states are read outside of a reload (see
    /// ``SchemaReloadGate``), so that each value holds at the revision its cursor gives.
    @inline(never)  // its frame is not held for the whole stream
    private func sendCurrent(
        scope: inout WatchScope,
        emit: @Sendable (WatchEvent) async throws -> Void
    ) async throws -> WatchCursor {
        var cursor = WatchCursor(history: self.history)
        var states: [(schema: ModuleSchema, state: ModuleState)] = []
        while true {
            let generation = await self.reloads.settled()
            try self.refresh(&scope)
            cursor = WatchCursor(history: self.history)
            states = []
            for module in scope.moduleNames {
                // Values that are not all the stored ones are not told: an applier would write them into system
                // files. The module comes back with a reset once its files can be used.
                if await self.repository.unusableState(of: module) != nil { continue }
                let state = try await self.state(of: module)
                cursor.positions[module] = .init(revision: state.revision)
                states.append((scope.modules[module]!, state))
            }
            if self.reloads.unchanged(since: generation) { break }
        }
        for (schema, state) in states {
            // A module's events at a time: a watch of every module does not hold all of them at once.
            for event in Self.currentEvents(of: schema, state, scope: scope, cursor: cursor) {
                try await emit(event)
            }
        }
        try await emit(.ready(cursor: cursor))
        return cursor
    }

    /// The current value of every watched key of `schema`'s module in `state`, as events (made apart from the async
    /// function that sends them, whose frame holds every local it has across its awaits).
    private static func currentEvents(
        of schema: ModuleSchema,
        _ state: ModuleState,
        scope: WatchScope,
        cursor: WatchCursor
    ) -> [WatchEvent] {
        var events: [WatchEvent] = []
        for section in schema.sections {
            for item in section.items where scope.includes(module: schema.name, path: "\(section.id).\(item.id)") {
                let setting = ResolvedSetting(module: schema.name, sectionID: section.id, item: item, state: state)
                events.append(.current(setting, revision: state.revision, cursor: cursor))
            }
        }
        return events
    }

    /// Sends the changes of `record` that come after the cursor and are watched, moving the cursor past each.
    @inline(never)  // its frame is not held for the whole stream
    private func deliver(
        _ record: ChangeRecord,
        module: String,
        scope: WatchScope,
        cursor: inout WatchCursor,
        emit: @Sendable (WatchEvent) async throws -> Void
    ) async throws {
        guard var position = cursor.positions[module] else { return }
        if record.changes.isEmpty, position.revision < record.revision {
            // A revision that changed no effective value: nothing to tell, the cursor moves past it.
            cursor.positions[module] = .init(revision: record.revision)
            return
        }
        let last = record.changes.count - 1
        for (index, change) in record.changes.enumerated()
        where position.precedes(revision: record.revision, index: index) {
            position = .init(revision: record.revision, index: index == last ? nil : index)
            cursor.positions[module] = position
            guard scope.includes(module: module, path: change.path) else { continue }
            try await emit(
                .change(module: module, change: change, revision: record.revision, cause: record.cause, cursor: cursor)
            )
        }
    }

    private func state(of module: String) async throws(SettingsFailure) -> ModuleState {
        do {
            return try await self.repository.state(of: module)
        } catch {
            throw .storageFailure(module: module, reason: "\(error)")
        }
    }
}

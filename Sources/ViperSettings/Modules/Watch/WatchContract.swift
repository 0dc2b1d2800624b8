public import SettingsAPI

// The Watch module's contract: a stream of the current values, then every change of an effective value.

/// What the Watch Interactor streams to its Presenter.
public enum WatchEvent: Sendable, Hashable {
    /// A key's value at the start of the stream, or after a resync.
    indirect case current(ResolvedSetting, revision: Int64, cursor: WatchCursor)
    /// Every current value (or, when resuming, every change after the cursor) was sent; changes follow as they come.
    case ready(cursor: WatchCursor)
    /// A key's effective value changed.
    indirect case change(
        module: String,
        change: SettingChange,
        revision: Int64,
        cause: ChangeCause,
        cursor: WatchCursor
    )
    /// The stream cannot go on from where it was: the current values follow.
    case resync(reason: WatchResyncReason)
}

/// Why a watch stream starts over from the current values.
public enum WatchResyncReason: Sendable, Hashable {
    /// The change history no longer reaches back to the cursor (or the cursor is of another state).
    case historyTooShort(module: String)
    /// The cursor has no position in a watched module: it was made for a watch of other modules.
    case cursorLacksModule(module: String)
    /// The cursor is ahead of the module's revision: it was made by another daemon or from another state directory.
    case cursorAhead(module: String, revision: Int64)
    /// The cursor's position `revision.index` (after change `index` of `revision`, counted from 0) does not exist:
    /// that revision has `changes` changes, and the daemon writes a position only before the last one. A cursor of
    /// another daemon or state directory, or one edited by hand.
    case noSuchPosition(module: String, revision: Int64, index: Int, changes: Int)
    /// The cursor is of history `history`, not of the state directory's (`current`; `nil` when it has none): another
    /// state directory, or this one before its state was reset.
    case otherHistory(history: String, current: String?)
    /// The watcher read too slowly and changes were dropped.
    case fellBehind
    /// A schema reload added a module to the ones a watch of every module follows.
    case moduleAdded(module: String)
    /// The cursor of a watch of every module names a module no longer served (a schema change removed it).
    case moduleRemoved(module: String)
    /// The module's state files could not be used, and now can: what was served meanwhile was not its state.
    case stateReloaded(module: String)
    /// The module's state files cannot be used (`reason`): its values are not sent until they can (then
    /// ``stateReloaded(module:)`` follows).
    case stateUnusable(module: String, reason: String)
    /// A schema reload changed the module's values and the change could not be stored (the state directory cannot
    /// be written): it has no revision, and is told once it is stored, at a later reload or start.
    case schemaChangeNotStored(module: String)
    /// A change the history holds has a value of `key` that the schema rejects, so the daemon never serves it: the
    /// state files were edited by hand, or the schema changed since.
    case historyRejected(module: String, key: String)
}

/// The View of one watch call: a stream of events.
public protocol WatchViewProtocol: FailureViewProtocol {
    /// Shows one event of the stream; throws when the client is gone, which ends the stream.
    func display(_ event: WatchEventViewModel) async throws
}

/// The Watch Presenter: checks the request, runs the stream and turns events into ViewModels.
public protocol WatchPresenterProtocol: Sendable {
    /// Streams the keys or modules named by `targets` (every module when empty), after `cursor` when given, until
    /// the task is cancelled or the view throws. An unknown module or key is a failure shown on the view.
    func watch(targets: [String], after cursor: WatchCursor?, view: any WatchViewProtocol) async
}

/// The Watch Interactor: subscribes, replays history, and follows the changes of the watched keys.
public protocol WatchInteractorProtocol: Sendable {
    /// Streams events to `emit` until the task is cancelled or `emit` throws.
    func watch(
        targets: [String],
        after cursor: WatchCursor?,
        emit: @Sendable (WatchEvent) async throws -> Void
    ) async throws
}

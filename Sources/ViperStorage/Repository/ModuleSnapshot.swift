import SettingsAPI
import ViperSettings

/// The snapshot file of a module, `NAME.json`, pretty-printed for people:
///
/// ```json
/// {
///   "format": 1,
///   "module": "network",
///   "revision": 7,
///   "local": {
///     "proxy.port": 8080
///   },
///   "history": {"floor": 3, "records": [{"revision": 4, "cause": {"uid": 0, "pid": 42}, "changes": […]}, …]}
/// }
/// ```
///
/// `history` holds the module's latest change records (see ``ChangeRecordJSON``), so that watchers can resume after
/// the journal was compacted; a snapshot without it (or with one that does not read) starts the history at its
/// revision.
///
/// Other members (such as `recommended` and `mandatory`, kept elsewhere) are ignored when reading.
struct ModuleSnapshot {
    /// The module's state; only `revision`, `local` and `history` are stored here.
    var state: ModuleState
    /// Keys whose stored value is not a valid setting value, skipped.
    var skippedKeys: [String] = []
    /// The highest revision the history names, read or not: above the snapshot's own, the revision was damaged.
    var historyHighest: Int64?
    /// Whether the file has a history that does not read (it is dropped: watchers resuming from before resync).
    var historyUnread = false

    /// The file's bytes for `state`.
    static func encode(module: String, state: ModuleState) -> [UInt8] {
        StateFileDocument.encode(
            module: module,
            revision: state.revision,
            members: [("local", state.local)],
            trailing: [("history", ChangeRecordJSON.json(state.history))]
        )
    }

    /// Reads a snapshot of `module`; throws a ``StateFileError`` for text that is not JSON or has the wrong shape.
    init(decoding bytes: [UInt8], module: String) throws(StateFileError) {
        let document = try StateFileDocument(decoding: bytes, module: module, kind: "snapshot")
        let local = try document.values(of: "local")
        self.state = ModuleState(
            revision: document.revision,
            local: local.values,
            history: ChangeRecordJSON.history(document.json["history"], revision: document.revision)
        )
        self.skippedKeys = local.skipped.sorted()
        let records = document.json["history"]?["records"]?.arrayValue ?? []
        self.historyHighest = records.compactMap { $0["revision"]?.intValue }.max()
        let member = document.json["history"]
        self.historyUnread =
            member != nil && (member?.objectValue == nil || (!records.isEmpty && self.state.history.records.isEmpty))
    }
}

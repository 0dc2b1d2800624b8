/// What became of a snapshot a remote source handed on: stored in every module, or not (a full disk), in which case
/// the source must not take it as done: it fetches and hands it on again, rather than answering "not modified".
public enum RemoteApplyOutcome: Sendable, Hashable {
    /// Every module's remote layers hold the snapshot's values (those the schemas accept).
    case stored
    /// Some module could not store its values; `reason` names them and why.
    case notStored(reason: String)
}

/// Why a use case of the Settings module failed, as facts: which key, which layer locks it, who may write. The
/// Presenter puts these in words (``SettingsErrorViewModel``); the core never does.
public enum SettingsFailure: Error, Sendable, Hashable {
    /// No module of that name.
    case noSuchModule(module: String)
    /// No key of that name (`module.section.item`).
    case noSuchKey(key: String)
    /// `value` does not fit the key's type or constraint; `reason` is the schema check's rejection.
    case invalidValue(key: String, value: String, reason: String)
    /// A stronger layer (the mandatory layer of the remote source) holds the key, so local writes are refused.
    case keyLocked(key: String, layer: Layer)
    /// `uid` is neither root nor one of the module's `writers`.
    case permissionDenied(module: String, uid: UInt32, writers: Writers)
    /// The repository could not load or store the module; `reason` is the storage error.
    case storageFailure(module: String, reason: String)
    /// `uid` may write no module, so it may not make the daemon sync with the remote source either.
    case syncDenied(uid: UInt32)
    /// A compare-and-set found the module at another revision than the caller expected.
    case revisionMismatch(module: String, expected: Int64, actual: Int64)
    /// A load was refused, nothing written: every value that cannot be applied.
    case loadRefused(problems: [LoadProblem])
    /// Remote sync is not configured or not served.
    case syncUnavailable(reason: String)
    /// The sync asked for did not finish: the fetch from `source` was cut short, or never started, for `why`.
    case syncInterrupted(SyncInterruption, source: String)
}

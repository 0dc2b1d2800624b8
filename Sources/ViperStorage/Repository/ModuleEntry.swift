import ViperSettings

/// What the repository holds for one loaded module. Confined to the repository actor.
final class ModuleEntry {
    /// The newest state, pending writes included: what the next `decide` sees.
    var state: ModuleState
    /// The state of the last durable write: what readers see, and what a failure falls back to.
    var durable: ModuleState
    /// Durable records in the journal since the last snapshot.
    var journalRecords: Int
    /// Set after a storage failure: the module keeps serving reads, and refuses writes until it is reopened.
    var failure: StorageError?

    init(_ loaded: LoadedModule) {
        self.state = loaded.state
        self.durable = loaded.state
        self.journalRecords = loaded.journalRecords
        self.failure = loaded.failure
    }
}

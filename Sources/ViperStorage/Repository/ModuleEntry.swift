import ViperSettings

/// What the repository holds for one loaded module. Confined to the repository actor.
final class ModuleEntry {
    /// The newest state, pending writes included: what the next `decide` sees.
    var state: ModuleState
    /// The state of the last durable write: what readers see, and what a failure falls back to. Published, for
    /// reads answered without entering the actor.
    var durable: ModuleState {
        didSet { self.published.publish(self.module, self.durable) }
    }
    private let module: String
    private let published: PublishedStates
    /// Durable records in the journal since the last snapshot.
    var journalRecords: Int
    /// The journal's size in bytes.
    var journalBytes: Int
    /// The journal's size when its fold into a snapshot last failed (0 when it did not): the fold is tried again
    /// once the journal has grown by as much again as a full journal, not at every write.
    var foldFailedAtBytes = 0
    /// Set when the module's files could not be read or repaired: reads serve what was read, writes are refused
    /// with this error; each write first loads the files again, and goes on when they load cleanly.
    var loadFailure: StorageError?
    /// Set when a file could not be read at the last load: the values served are not all the files hold, so
    /// watchers are not told them (``JSONFileRepository/unusableState(of:)``). Files read but not writable are not.
    var unreadFailure: StorageError?
    /// Set after a failed write, until a write succeeds: the next write tries again; logged once.
    var writeFailure: StorageError?
    /// After a failed write whose records could not be cut off the journal: the size to cut it to before the next
    /// append.
    var journalCut: Int?
    /// The newest record while it is not durable: a write that changes nothing waits for it.
    var lastPending: PendingWrite?

    init(_ loaded: LoadedModule, module: String, published: PublishedStates) {
        self.module = module
        self.published = published
        self.state = loaded.state
        self.durable = loaded.state
        published.publish(module, loaded.state)
        self.journalRecords = loaded.journalRecords
        self.journalBytes = loaded.journalBytes
        self.loadFailure = loaded.failure
        self.unreadFailure = loaded.unread
    }
}

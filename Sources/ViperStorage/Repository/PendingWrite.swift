import ViperSettings

/// A journal record, or a remote file, waiting for its batch to be durable. Confined to the repository actor.
final class PendingWrite {
    let module: String
    /// The journal line, newline included; for a remote file, a record that changes nothing but carries the
    /// revision, so that the journal knows every revision given out (see ``ModuleLoader``).
    let line: [UInt8]
    /// The whole `NAME.remote.json` to write, for a remote update; `nil` for a journal record.
    let remoteFile: [UInt8]?
    /// The module's state once this record is applied.
    let after: ModuleState
    /// The change record to publish to watchers once the write is durable; `nil` when the revision did not move.
    var published: ChangeRecord?
    /// Set when the record's batch is done.
    private(set) var outcome: Result<Void, StorageError>?
    /// Set when the caller is to commit the next batch.
    private(set) var leads = false
    // Unsafe continuations (a checked one allocates and looks up its type at every durable set, ~3 % of a set's
    // instructions): each is resumed exactly once, by `wake()` or `finish(_:)`, which clear what they resume, or at
    // once when the outcome is already there.
    private var waiter: UnsafeContinuation<Void, Never>?
    /// Callers other than the writer's waiting for the outcome (see ``settled(isolation:)``).
    private var followers: [UnsafeContinuation<Void, Never>] = []

    /// A journal record.
    init(module: String, line: [UInt8], after: ModuleState) {
        self.module = module
        self.line = line
        self.remoteFile = nil
        self.after = after
    }

    /// A replacement of the module's remote file.
    init(module: String, remoteFile: [UInt8], after: ModuleState, record: ChangeRecord?) {
        self.module = module
        self.line = JournalRecord(change: LocalChange(revision: after.revision, record: record)).line
        self.remoteFile = remoteFile
        self.after = after
    }

    /// Suspends the caller until the record is done or the caller is chosen to lead a batch.
    func wait(isolation: isolated (any Actor)? = #isolation) async {
        await withUnsafeContinuation(isolation: isolation) { continuation in
            if self.outcome != nil || self.leads {
                continuation.resume()
            } else {
                self.waiter = continuation
            }
        }
    }

    /// Suspends another caller until the record is done, whatever its outcome: one that decided on a state holding
    /// this record answers only once that state is durable.
    func settled(isolation: isolated (any Actor)? = #isolation) async {
        await withUnsafeContinuation(isolation: isolation) { continuation in
            if self.outcome != nil {
                continuation.resume()
            } else {
                self.followers.append(continuation)
            }
        }
    }

    /// Records the outcome and wakes the caller and those waiting for it to settle.
    func finish(_ outcome: Result<Void, StorageError>) {
        self.outcome = outcome
        self.wake()
        for follower in self.followers { follower.resume() }
        self.followers = []
    }

    /// Makes the caller the leader of the next batch and wakes it.
    func lead() {
        self.leads = true
        self.wake()
    }

    private func wake() {
        self.waiter?.resume()
        self.waiter = nil
    }
}

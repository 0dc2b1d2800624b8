import Glibc
import Synchronization
import ViperPOSIX

/// The files of a state directory and the durable operations on them; counts every sync it makes.
///
/// Layout, flat so that people can read and back it up: `NAME.json` (snapshot), `NAME.journal` (one change per
/// line since the snapshot), `NAME.remote.json` (the cached remote layers), `.NAME.json.tmp` /
/// `.NAME.remote.json.tmp` (files being written) and `NAME.json.corrupt-TIMESTAMP` /
/// `NAME.journal.corrupt-TIMESTAMP` / `NAME.remote.json.corrupt-TIMESTAMP` (files that did not parse, moved aside).
/// Every function blocks.
struct StateDirectory: Sendable {
    /// The directory.
    let path: String
    private let counter: SyncCounter
    /// The directory the state files are written in: taken when the directory is first seen (at start in the
    /// daemon, which locks it), so that one removed or replaced under a running daemon is noticed.
    private let identity: SeenIdentity

    init(path: String) {
        var trimmed = path
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.path = trimmed
        self.counter = SyncCounter()
        // Only a directory counts as seen: a file in its place is reported (see problem()) until it is moved away.
        self.identity = SeenIdentity(
            (try? FileOperations.identity(trimmed).get()).flatMap { $0.isDirectory ? $0 : nil }
        )
    }

    /// How many `fsync`/`fdatasync` calls were made so far, of files and of the directory.
    var syncCount: Int { self.counter.value }

    func snapshotPath(_ module: String) -> String { "\(self.path)/\(module).json" }
    func journalPath(_ module: String) -> String { "\(self.path)/\(module).journal" }
    func temporaryPath(_ module: String) -> String { "\(self.path)/.\(module).json.tmp" }
    func remotePath(_ module: String) -> String { "\(self.path)/\(module).remote.json" }
    func remoteTemporaryPath(_ module: String) -> String { "\(self.path)/.\(module).remote.json.tmp" }

    /// Why the directory cannot hold state files: it, or the first of its ancestors that exists, is not a
    /// directory. `nil` when it is usable (or missing under a directory, to be created on the first write).
    func problem() -> StorageError? {
        var path = self.path
        while true {
            if let kind = FileOperations.kind(path) {
                if kind.isDirectory { return nil }
                let what = path == self.path ? "it" : path
                return StorageError(
                    "the state directory \(self.path) cannot be used: \(what) is \(kind.name), expected a directory; "
                        + "move it out of the way or set state-dir to a directory",
                    errno: ENOTDIR
                )
            }
            let parent = FileOperations.parent(of: path)
            if parent == path { return nil }
            path = parent
        }
    }

    /// Why a module file cannot be used: something other than a regular file is at `path` (a symbolic link too,
    /// whatever it points to: the daemon never writes through one, so it does not read through one either). `nil`
    /// when it is a file or missing.
    func fileProblem(_ path: String) -> StorageError? {
        if FileOperations.isSymbolicLink(path) { return FileOperations.symbolicLinkError(path) }
        guard let kind = FileOperations.kind(path) else { return nil }
        if kind.isFile {
            // The daemon reads the file at the module's first access (and writes it, or beside it, on a change:
            // ``writeProblem(_:)``).
            guard let code = FileOperations.accessError(path, R_OK) else { return nil }
            return StorageError(
                "\(path) cannot be used: \(SystemErrorText.describe(code)) (the daemon's user must be able to read "
                    + "and write it); fix its owner or mode",
                errno: code
            )
        }
        return StorageError(
            "\(path) is \(kind.name), expected a file; move it out of the way",
            errno: kind.isDirectory ? EISDIR : EINVAL
        )
    }

    /// Why a module file that can be read cannot be written: its mode or owner, or a file system mounted read-only.
    /// The module serves what the file holds and refuses writes. `nil` when it can be written, or is missing.
    func writeProblem(_ path: String) -> StorageError? {
        guard FileOperations.kind(path)?.isFile == true, let code = FileOperations.accessError(path, W_OK) else {
            return nil
        }
        if code == EROFS {
            return StorageError(
                "\(path) cannot be written: its file system is mounted read-only (remount it read-write)",
                errno: code
            )
        }
        return StorageError(
            "\(path) cannot be written: \(SystemErrorText.describe(code)) (the daemon's user must be able to read "
                + "and write it); fix its owner or mode",
            errno: code
        )
    }

    /// The problems of the directory and of the files of `modules`, for a report at start.
    func problems(modules: [String]) -> [StorageError] {
        if let problem = self.problem() { return [problem] }
        if FileOperations.kind(self.path) != nil, let code = FileOperations.accessError(self.path, R_OK | W_OK | X_OK) {
            let advice =
                code == EROFS
                ? "its file system is mounted read-only: the modules serve the values stored and refuse writes "
                    + "(remount it read-write)"
                : "\(SystemErrorText.describe(code)) (the daemon's user must be able to read, write and search it); "
                    + "fix its owner or mode"
            return [StorageError("the state directory \(self.path) cannot be used: \(advice)", errno: code)]
        }
        return modules.flatMap { module in
            [self.snapshotPath(module), self.journalPath(module), self.remotePath(module)].compactMap {
                self.fileProblem($0) ?? self.writeProblem($0)
            }
        }
    }

    /// Creates the directory when it is missing and it was never seen; refuses, naming the problem, when the
    /// directory seen before was removed or replaced (a change written there would be lost, or land beside
    /// another daemon's).
    func create() throws(StorageError) {
        let seen = self.identity.value
        if seen == nil { try FileOperations.createDirectory(self.path) }
        let current: FileIdentity
        switch FileOperations.identity(self.path) {
        case .success(let identity): current = identity
        case .failure(let error) where error.errno == ENOENT && seen != nil: throw self.replaced("removed")
        case .failure(let error): throw error
        }
        guard let seen else {
            self.identity.value = current
            return
        }
        if seen != current { throw self.replaced("replaced by another directory") }
    }

    private func replaced(_ what: String) -> StorageError {
        Self.replaced(self.path, what)
    }

    /// Why nothing is written at `path`: the state directory there was `what` ("removed", "replaced by another
    /// directory") while the daemon ran.
    static func replaced(_ path: String, _ what: String) -> StorageError {
        StorageError(
            "the state directory \(path) was \(what) while the daemon ran: it is not the directory the daemon "
                + "started with (and locked), so no change is stored; restart viper-settingsd to use the directory "
                + "now at that path",
            errno: ESTALE
        )
    }

    /// `fdatasync` of a file of this directory, counted.
    func dataSync(_ descriptor: Int32, path: String) throws(StorageError) {
        self.counter.increment()
        try FileOperations.dataSync(descriptor, path: path)
    }

    /// `fsync` of a file of this directory, counted.
    func sync(_ descriptor: Int32, path: String) throws(StorageError) {
        self.counter.increment()
        try FileOperations.sync(descriptor, path: path)
    }

    /// `fsync` of the directory itself, counted.
    func syncDirectory() throws(StorageError) {
        self.counter.increment()
        try FileOperations.syncDirectory(self.path)
    }

    /// Replaces a module's snapshot atomically and durably: temporary file, write, fsync, rename, directory fsync.
    func writeSnapshot(_ bytes: [UInt8], module: String) throws(StorageError) {
        try self.replace(self.snapshotPath(module), with: bytes, temporary: self.temporaryPath(module))
        try self.syncDirectory()
    }

    /// Replaces `file` atomically: writes `temporary` (in this directory), fsyncs it (unless `sync` is false) and
    /// renames it over `file`. The caller syncs the directory to make the new name durable. The temporary file is
    /// removed on failure.
    func replace(_ file: String, with bytes: [UInt8], temporary: String, sync: Bool = true) throws(StorageError) {
        try self.replace(file, with: bytes, temporary: temporary, sync: sync) { () throws(StorageError) in }
    }

    /// ``replace(_:with:temporary:sync:)``, calling `beforeRename` once the temporary file is written (and synced);
    /// a failure of `beforeRename` leaves `file` as it was.
    private func replace(
        _ file: String,
        with bytes: [UInt8],
        temporary: String,
        sync: Bool,
        beforeRename: () throws(StorageError) -> Void
    ) throws(StorageError) {
        do throws(StorageError) {
            try self.create()
            let descriptor = try FileOperations.createNew(temporary, path: temporary)
            defer { FileOperations.close(descriptor) }
            try FileOperations.writeAll(descriptor, bytes, path: temporary)
            if sync { try self.sync(descriptor, path: temporary) }
            try beforeRename()
            try FileOperations.rename(temporary, to: file)
        } catch {
            FileOperations.removeIfPresent(temporary)
            throw error
        }
    }

    /// Replaces a corrupt snapshot with `bytes`, keeping the corrupt one as `NAME.json.corrupt-TIMESTAMP`, and
    /// returns that path. The new snapshot is written and synced first, then the corrupt one gets its second name (a
    /// hard link) and the new one is renamed over the first, then the directory is synced: whatever fails, or
    /// wherever a crash stops it, `NAME.json` holds the corrupt snapshot or the new one, never nothing, so the
    /// revisions it names are not forgotten.
    func replaceCorruptSnapshot(_ bytes: [UInt8], module: String, timestamp: String) throws(StorageError) -> String {
        let file = self.snapshotPath(module)
        let aside = Self.asideName(file, timestamp: timestamp)
        try self.replace(file, with: bytes, temporary: self.temporaryPath(module), sync: true) {
            () throws(StorageError) in
            guard Glibc.link(file, aside) == 0 else {
                throw .system("link", "\(file) to \(aside)", errno: Glibc.errno)
            }
        }
        try self.syncDirectory()
        return aside
    }
    /// Renames a file that did not parse to `FILE.corrupt-TIMESTAMP` (with a `-2`, `-3`… suffix should that name be
    /// taken) and syncs the directory; returns the new path.
    func moveAside(_ file: String, timestamp: String) throws(StorageError) -> String {
        let destination = Self.asideName(file, timestamp: timestamp)
        try FileOperations.rename(file, to: destination)
        try self.syncDirectory()
        return destination
    }

    /// `FILE.corrupt-TIMESTAMP`, or with a `-2`, `-3`… suffix when that name is taken.
    private static func asideName(_ file: String, timestamp: String) -> String {
        let base = "\(file).corrupt-\(timestamp)"
        var destination = base
        var suffix = 2
        while FileOperations.exists(destination) {
            destination = "\(base)-\(suffix)"
            suffix += 1
        }
        return destination
    }
}

/// The identity of the directory once seen, shared by the copies of a ``StateDirectory``.
private final class SeenIdentity: Sendable {
    private let storage: Mutex<FileIdentity?>

    init(_ identity: FileIdentity?) {
        self.storage = Mutex(identity)
    }

    var value: FileIdentity? {
        get { self.storage.withLock { $0 } }
        set { self.storage.withLock { $0 = newValue } }
    }
}

/// A thread-safe count of syncs.
final class SyncCounter: Sendable {
    private let count = Atomic<Int>(0)

    var value: Int { self.count.load(ordering: .relaxed) }

    func increment() {
        self.count.add(1, ordering: .relaxed)
    }
}

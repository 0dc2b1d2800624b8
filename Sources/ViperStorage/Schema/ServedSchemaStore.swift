import Glibc
import ViperPOSIX

/// The schema each module was last served with, kept in the state directory (`schemas/NAME.json`, the bytes of the
/// module's schema file): so that a schema changed, added or removed while the daemon was stopped (a package
/// upgrade) is told to watchers at the next start, as a reload tells it, instead of being missed by a watcher that
/// resumes after its cursor. Every function blocks.
///
/// Neither the folder nor a file in it is read or written through a symbolic link (the daemon runs as root, and
/// whoever can write the state directory could otherwise make it read or replace a file of root's): the folder is
/// opened with `O_DIRECTORY | O_NOFOLLOW`, and its files relative to it (`openat` with `O_NOFOLLOW`, `renameat`,
/// `unlinkat`). A folder that is a link, or not a folder, is not used (see ``Kept/problem``); a copy that is a link
/// is not read (see ``Kept/unreadable``), and is replaced (the link itself, not what it points to) by the next
/// record.
public struct ServedSchemaStore: Sendable {
    /// `STATE/schemas`.
    public let path: String
    private let counter = SyncCounter()
    private let lock: StateDirectoryLock?
    /// The state directory.
    private let parent: String

    /// What the store holds, as read at start.
    public struct Kept: Sendable {
        /// The schema files kept, by module; a copy that cannot be read is given as no bytes, which no schema is.
        public var sources: [String: [UInt8]] = [:]
        /// Why each copy given as no bytes could not be read (a symbolic link, not a regular file, no permission,
        /// too large), by module.
        public var unreadable: [String: StorageError] = [:]
        /// Why the folder cannot be used (a symbolic link, not a folder, cannot be opened or listed): nothing is
        /// read from it, nor written to it.
        public var problem: StorageError?

        public init(
            sources: [String: [UInt8]] = [:],
            unreadable: [String: StorageError] = [:],
            problem: StorageError? = nil
        ) {
            self.sources = sources
            self.unreadable = unreadable
            self.problem = problem
        }
    }

    /// The store of the state directory `stateDirectory`, written only while `lock` is held (it is taken first when
    /// it could not be at start; `nil` writes without a lock).
    public init(stateDirectory: String, lock: StateDirectoryLock? = nil) {
        let state = StateDirectory(path: stateDirectory)
        self.parent = state.path
        self.path = "\(state.path)/schemas"
        self.lock = lock
    }

    /// How many `fsync` calls the store made, of files and of the folder (for tests).
    package var syncCount: Int { self.counter.value }

    /// What the folder is, for its errors.
    private static let what = "its copies of the schemas served"

    /// The schema files kept, by module; empty when there are none (a first start, or an earlier version) or the
    /// folder cannot be used. A file that cannot be read (a symbolic link, not a regular file, no permission, too
    /// large) is given as no bytes, which no schema is: its module was served, with a schema that is not known any
    /// more.
    public func read() -> [String: [UInt8]] {
        self.readKept().sources
    }

    /// The schema files kept, and why those that could not be read could not, or why the folder cannot be used.
    public func readKept() -> Kept {
        let directory: Int32
        let entries: [String]
        do throws(StorageError) {
            guard let opened = try FileOperations.openDirectory(self.path, what: Self.what) else { return Kept() }
            directory = opened
            do throws(StorageError) {
                entries = try FileOperations.directoryEntries(directory, path: self.path)
            } catch {
                FileOperations.close(directory)
                throw error
            }
        } catch {
            return Kept(problem: error)
        }
        defer { FileOperations.close(directory) }
        let names = entries.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }
        // Read on every core, as the schema files are: the daemon's start waits for them.
        let contents = names.concurrentMap { name -> Result<[UInt8], StorageError> in
            self.readCopy(name, in: directory)
        }
        var kept = Kept()
        for (name, result) in zip(names, contents) {
            let module = String(name.dropLast(".json".count))
            switch result {
            case .success(let bytes): kept.sources[module] = bytes
            case .failure(let error):
                kept.sources[module] = []
                kept.unreadable[module] = error
            }
        }
        return kept
    }

    /// The bytes of the copy `name` in the open folder, not through a symbolic link.
    private func readCopy(_ name: String, in directory: Int32) -> Result<[UInt8], StorageError> {
        let file = "\(self.path)/\(name)"
        do {
            // No schema larger than a schema file may be was ever served: a larger file is not read to its end.
            let bytes = try RegularFile.contents(
                of: name,
                in: directory,
                limit: ModuleCatalogLoader.maximumFileSize,
                followingLinks: false
            )
            // Removed since the folder was listed: its module was served all the same.
            return .success(bytes ?? [])
        } catch {
            switch error {
            case .system("open", ELOOP):
                return .failure(
                    FileOperations.symbolicLinkError(
                        file,
                        what: Self.what,
                        then: ", so it is not read (the copy kept next replaces the link)"
                    )
                )
            case .system("read", EFBIG):
                return .failure(
                    StorageError(
                        "\(file) is larger than a schema file may be (\(ModuleCatalogLoader.maximumFileSize) bytes)",
                        errno: EFBIG
                    )
                )
            case .system(let operation, let code): return .failure(.system(operation, file, errno: code))
            case .notRegularFile(let kind):
                return .failure(StorageError("\(file) is \(kind), expected a file", errno: EINVAL))
            }
        }
    }

    /// Makes the store hold exactly `sources`: each file that differs is replaced durably (temporary file, fsync,
    /// rename: a crash never leaves a copy empty or torn), the files of modules not served any more are removed, then
    /// the folder is synced. The files change only at start and at a reload, so the syncs cost little. The folder is
    /// made when missing; one that is a symbolic link or not a folder is an error, and nothing is written.
    ///
    /// - Parameter kept: What the store holds, when just read (at start); read again when `nil`.
    public func record(_ sources: [String: [UInt8]], kept: [String: [UInt8]]? = nil) throws(StorageError) {
        // Never beside another daemon that holds the directory, nor in one at its path that is not locked.
        if let failure = self.lock?.heldOrTaken() ?? self.lock?.movedSinceLocked() { throw failure }
        let kept = kept ?? self.read()
        let changed = sources.filter { kept[$0.key] != $0.value }.sorted { $0.key < $1.key }
        let removed = kept.keys.filter { sources[$0] == nil }.sorted()
        if changed.isEmpty && removed.isEmpty { return }
        let directory = try self.openCreating()
        defer { FileOperations.close(directory) }
        for (module, bytes) in changed {
            try self.replace("\(module).json", with: bytes, in: directory)
        }
        for module in removed {
            _ = Glibc.unlinkat(directory, "\(module).json", 0)
        }
        self.counter.increment()
        try FileOperations.sync(directory, path: self.path)
    }

    /// The folder, open, made first when missing (and its state directory, and the parent folder synced).
    private func openCreating() throws(StorageError) -> Int32 {
        if let directory = try FileOperations.openDirectory(self.path, what: Self.what) { return directory }
        try FileOperations.createDirectory(self.parent)
        // Not through a link: mkdir makes no directory where any name is (a link planted meanwhile is EEXIST), and
        // what is there is opened with O_NOFOLLOW.
        if Glibc.mkdir(self.path, 0o755) == 0 {
            try FileOperations.syncDirectory(self.parent)
        } else {
            let code = Glibc.errno
            if code != EEXIST { throw .system("mkdir", self.path, errno: code) }
        }
        guard let directory = try FileOperations.openDirectory(self.path, what: Self.what) else {
            throw .system("open", self.path, errno: ENOENT)
        }
        return directory
    }

    /// Replaces the file `name` of the open folder: a new temporary file (`.NAME.tmp`, whatever was at that name
    /// removed first, created with `O_EXCL | O_NOFOLLOW`), written, fsynced and renamed over `name` (the entry itself,
    /// a symbolic link too, never what one points to). The temporary file is removed on failure.
    private func replace(_ name: String, with bytes: [UInt8], in directory: Int32) throws(StorageError) {
        let temporary = ".\(name).tmp"
        let temporaryPath = "\(self.path)/\(temporary)"
        let descriptor = try FileOperations.createNew(temporary, in: directory, path: temporaryPath)
        do throws(StorageError) {
            defer { FileOperations.close(descriptor) }
            try FileOperations.writeAll(descriptor, bytes, path: temporaryPath)
            self.counter.increment()
            try FileOperations.sync(descriptor, path: temporaryPath)
            guard Glibc.renameat(directory, temporary, directory, name) == 0 else {
                throw .system("rename", "\(temporaryPath) to \(self.path)/\(name)", errno: Glibc.errno)
            }
        } catch {
            _ = Glibc.unlinkat(directory, temporary, 0)
            throw error
        }
    }
}

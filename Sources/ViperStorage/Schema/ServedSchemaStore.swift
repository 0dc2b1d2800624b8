import ViperPOSIX

/// The schema each module was last served with, kept in the state directory (`schemas/NAME.json`, the bytes of the
/// module's schema file): so that a schema changed, added or removed while the daemon was stopped (a package
/// upgrade) is told to watchers at the next start, as a reload tells it, instead of being missed by a watcher that
/// resumes after its cursor. Every function blocks.
public struct ServedSchemaStore: Sendable {
    /// `STATE/schemas`.
    public let path: String
    private let directory: StateDirectory
    private let lock: StateDirectoryLock?

    /// The store of the state directory `stateDirectory`, written only while `lock` is held (it is taken first when
    /// it could not be at start; `nil` writes without a lock).
    public init(stateDirectory: String, lock: StateDirectoryLock? = nil) {
        let state = StateDirectory(path: stateDirectory)
        self.path = "\(state.path)/schemas"
        self.directory = StateDirectory(path: self.path)
        self.lock = lock
    }

    /// How many `fsync` calls the store made, of files and of the folder (for tests).
    package var syncCount: Int { self.directory.syncCount }

    /// The schema files kept, by module; empty when there are none (a first start, or an earlier version). A file
    /// that cannot be read (not a regular file, no permission, too large) is given as no bytes, which no schema is:
    /// its module was served, with a schema that is not known any more.
    public func read() -> [String: [UInt8]] {
        guard let entries = try? FileOperations.directoryEntries(self.path) else { return [:] }
        let names = entries.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }
        // Read on every core, as the schema files are: the daemon's start waits for them.
        let contents = names.concurrentMap { name -> [UInt8]? in
            let file = "\(self.path)/\(name)"
            // No schema larger than a schema file may be was ever served: a larger file is not read to its end.
            return FileOperations.kind(file)?.isFile == true
                ? try? RegularFile.contents(of: file, limit: ModuleCatalogLoader.maximumFileSize) : nil
        }
        var sources: [String: [UInt8]] = [:]
        for (name, bytes) in zip(names, contents) {
            sources[String(name.dropLast(".json".count))] = bytes ?? []
        }
        return sources
    }

    /// Makes the store hold exactly `sources`: each file that differs is replaced durably (temporary file, fsync,
    /// rename: a crash never leaves a copy empty or torn), the files of modules not served any more are removed, then
    /// the folder is synced. The files change only at start and at a reload, so the syncs cost little.
    ///
    /// - Parameter kept: What the store holds, when just read (at start); read again when `nil`.
    public func record(_ sources: [String: [UInt8]], kept: [String: [UInt8]]? = nil) throws(StorageError) {
        // Never beside another daemon that holds the directory.
        if let failure = self.lock?.heldOrTaken() { throw failure }
        let kept = kept ?? self.read()
        var changed = false
        for (module, bytes) in sources.sorted(by: { $0.key < $1.key }) where kept[module] != bytes {
            try self.directory.replace(
                "\(self.path)/\(module).json",
                with: bytes,
                temporary: "\(self.path)/.\(module).json.tmp"
            )
            changed = true
        }
        for module in kept.keys where sources[module] == nil {
            FileOperations.removeIfPresent("\(self.path)/\(module).json")
            changed = true
        }
        if changed { try self.directory.syncDirectory() }
    }
}

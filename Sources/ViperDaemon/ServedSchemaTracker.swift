import Logging
import ViperSettings
import ViperStorage

/// Tells watchers what a schema changed while the daemon was stopped (a package upgrade that changes a default,
/// adds or removes a key or a module), as a reload tells them, and keeps the schemas served for the next start.
struct ServedSchemaTracker: Sendable {
    let store: ServedSchemaStore
    /// The modules whose schema change could not be recorded: their kept copies stay the ones told of.
    let untold: UntoldSchemas
    let logger: Logger

    /// At start: records, as changes of the modules, what differs between `kept` (the schemas the state directory
    /// kept from the last run, read before `catalog` was loaded) and `catalog`'s, then keeps `catalog`'s. Nothing is
    /// recorded on a first start (nothing kept): a module without a kept schema counts as added only when others
    /// were kept. A module whose kept schema cannot be read (an empty file a crash left, one edited) was served with
    /// a schema that is unknown: its watchers start over from its current values (a resync) rather than hear of
    /// every key as added.
    ///
    /// A folder of copies that cannot be used (a symbolic link, not a folder) is logged, and counts as nothing kept;
    /// a copy that is a symbolic link is not read: as one that cannot be read, its module's watchers start over.
    func start(
        kept stored: ServedSchemaStore.Kept,
        catalog: ModuleCatalog,
        builder: SettingsModuleBuilder,
        maxValueSize: Int
    )
        async
    {
        if let problem = stored.problem {
            self.logger.warning(
                """
                The copies of the schemas last served (\(self.store.path)) are not used: \(problem); what a schema \
                changed while the daemon was stopped cannot be told to watchers
                """
            )
        }
        let kept = stored.sources
        let sources = catalog.currentSources
        let current = catalog.current
        if !kept.isEmpty {
            let served = Dictionary(current.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            var previous: [ModuleSchema] = []
            var unknown: Set<String> = []
            for (module, bytes) in kept.sorted(by: { $0.key < $1.key }) {
                if sources[module] == bytes, let schema = served[module] {
                    previous.append(schema)
                    continue
                }
                do {
                    if let unreadable = stored.unreadable[module] { throw unreadable }
                    previous.append(
                        try ModuleCatalogLoader.schema(name: module, bytes: bytes).limitingValueSize(to: maxValueSize)
                    )
                } catch {
                    unknown.insert(module)
                    let isServed = served[module] != nil
                    self.logger.warning(
                        """
                        The schema module \(module) was last served with (\(self.store.path)/\(module).json) cannot \
                        be read: \(error); what the schema now served changed in its values cannot be told to \
                        watchers\(isServed ? ", they start over from its current values (a resync)" : "")
                        """,
                        metadata: ["module": "\(module)"]
                    )
                }
            }
            let untold = await builder.adopt(
                schemas: current,
                previous: previous,
                unknownPrevious: unknown,
                addedModulesAreNew: true
            )
            self.untold.update(untold: untold, previous: previous, unknown: unknown, sources: kept)
        }
        self.keep(sources, kept: kept)
    }

    /// Keeps `sources` as the schemas served, but for the modules whose change could not be recorded (their copy
    /// stays the one told of, so that the next start records it); `kept` is what the store holds, when just read.
    func keep(_ sources: [String: [UInt8]], kept: [String: [UInt8]]? = nil) {
        do {
            try self.store.record(self.untold.sourcesToKeep(sources), kept: kept)
        } catch {
            self.logger.warning(
                """
                Cannot keep the schemas served in \(self.store.path): \(error); what a schema changes while the \
                daemon is stopped will not be told to watchers at the next start
                """
            )
        }
    }
}

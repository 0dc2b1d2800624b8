import Logging
import Synchronization
import ViperSettings
import ViperStorage

/// The schemas the daemon serves, re-read on reload. A module whose file breaks keeps its previous version; a
/// module whose `writers` name an account the system does not know is served, with a warning. A modules directory
/// without a schema file drops no module served: it is refused as one that cannot be read is (``NoSchemaFiles``).
final class ModuleCatalog: Sendable {
    /// A reload refused: the modules directory holds no schema file, and serving it would drop every module served.
    struct NoSchemaFiles: Error, CustomStringConvertible {
        let directory: String
        let served: Int

        var description: String {
            "the modules directory \(self.directory) holds no schema files (*.json): reading it would drop the "
                + "\(self.served) module\(self.served == 1 ? "" : "s") served"
        }
    }

    private let schemas = Mutex(Served(byName: [:]))
    /// The bytes of each served schema's file (see `ServedSchemaStore`).
    private let sources = Mutex<[String: [UInt8]]>([:])
    private let rejected = Mutex<[SchemaError]>([])
    private let withoutSchemas = Mutex<String?>(nil)
    /// The warning last logged for each module whose writers name accounts the system does not know.
    private let writerWarnings = Mutex<[String: String]>([:])
    private let accounts: any AccountDirectory
    private let logger: Logger

    init(accounts: any AccountDirectory, logger: Logger) {
        self.accounts = accounts
        self.logger = logger
    }

    /// The schemas currently served, sorted by name.
    var current: [ModuleSchema] { self.schemas.withLock { $0.sorted } }

    /// The schema of `module` currently served.
    func schema(named module: String) -> ModuleSchema? { self.schemas.withLock { $0.byName[module] } }

    /// The schema files the last load rejected, by path (each logged with why).
    var rejectedFiles: [String] { self.rejected.withLock { $0.map { $0.file ?? "?" } } }

    /// Why the last load rejected each file it rejected, by path.
    var rejections: [SchemaError] { self.rejected.withLock { $0 } }

    /// The schema file of `module` the last load rejected, when the module is not served (no earlier version of it
    /// was): why a call that names it finds no such module.
    func rejectedFile(ofUnservedModule module: String) -> String? {
        guard self.schema(named: module) == nil else { return nil }
        return self.rejected.withLock { $0.lazy.compactMap(\.file).first { Self.moduleName(ofFile: $0) == module } }
    }

    /// The bytes of the file of each schema served, by module.
    var currentSources: [String: [UInt8]] { self.sources.withLock { $0 } }

    /// The modules directory, when the last load found no schema file in it: it refused the directory when modules
    /// were served (they still are), else serves none. `nil` when it found one, or could not read the directory.
    var emptyDirectory: String? { self.withoutSchemas.withLock { $0 } }

    /// Reads `directory`; logs every rejected file with its path and reason, keeps the previous version of a module
    /// whose file was rejected, warns about the writers of the loaded modules that name no account, and returns the
    /// schemas now served, their values limited to `maxValueSize` bytes.
    ///
    /// A directory without a schema file (`*.json`) is served when no module is (at start: logged as a warning), and
    /// refused otherwise, as one that cannot be read is: a directory emptied by mistake drops no module.
    ///
    /// - Parameter kept: The schema files last served (see `ServedSchemaStore`), by module: at start, a module whose
    ///   file is rejected is served as it was last, as a reload keeps the previous version.
    /// - Throws: A `StorageError` when the directory cannot be read, ``NoSchemaFiles`` when it holds no schema file
    ///   while modules are served; the schemas served stay as they were.
    @discardableResult
    func load(directory: String, maxValueSize: Int, kept: [String: [UInt8]] = [:]) throws -> [ModuleSchema] {
        let catalog: LoadedCatalog
        do {
            catalog = try ModuleCatalogLoader(directory: directory, maxValueSize: maxValueSize).loadCatalog()
        } catch {
            self.withoutSchemas.withLock { $0 = nil }
            throw error
        }
        self.withoutSchemas.withLock { $0 = catalog.files == 0 ? directory : nil }
        let previous = self.schemas.withLock { $0.byName }
        if catalog.files == 0 {
            guard previous.isEmpty else { throw NoSchemaFiles(directory: directory, served: previous.count) }
            self.logger.warning(
                "the modules directory \(directory) holds no schema files (*.json): no module is served",
                metadata: ["modules_dir": "\(directory)"]
            )
        }
        let (loaded, errors) = (catalog.schemas, catalog.errors)
        let previousSources = self.sources.withLock { $0 }
        var next = Dictionary(loaded.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var nextSources = catalog.sources
        for error in errors {
            let file = error.file ?? "?"
            let name = Self.moduleName(ofFile: file)
            if let name, next[name] == nil, let kept = previous[name] {
                next[name] = self.limited(kept, to: maxValueSize)
                nextSources[name] = previousSources[name]
                self.logger.error(
                    "schema rejected, keeping the previous version of the module: \(error)",
                    metadata: ["module": "\(name)", "file": "\(file)"]
                )
            } else if let name, next[name] == nil, let bytes = kept[name],
                let last = try? ModuleCatalogLoader.schema(name: name, bytes: bytes)
            {
                next[name] = self.limited(last, to: maxValueSize)
                nextSources[name] = bytes
                self.logger.error(
                    "schema rejected, serving the module as it was last served: \(error)",
                    metadata: ["module": "\(name)", "file": "\(file)"]
                )
            } else {
                self.logger.error("schema rejected: \(error)", metadata: ["file": "\(file)"])
            }
        }
        // Said once, not at every reload while the accounts stay missing: again only when what is missing changes.
        var warnings: [String: String] = [:]
        for schema in loaded {
            if let warning = schema.writers.unknownNamesWarning(module: schema.name, accounts: self.accounts) {
                warnings[schema.name] = warning
            }
        }
        let said = self.writerWarnings.withLock { previous in
            let said = previous
            previous = warnings
            return said
        }
        for (module, warning) in warnings.sorted(by: { $0.key < $1.key }) where said[module] != warning {
            self.logger.warning("\(warning)", metadata: ["module": "\(module)"])
        }
        let served = Served(byName: next)
        self.schemas.withLock { $0 = served }
        self.sources.withLock { $0 = nextSources }
        self.rejected.withLock { $0 = errors.sorted { ($0.file ?? "?") < ($1.file ?? "?") } }
        return served.sorted
    }

    /// A schema served again in place of its rejected file, its values limited to `maxValueSize` bytes; a default
    /// over that limit (a reload that lowered it) is logged: it is served, but a set of the same value is refused.
    private func limited(_ schema: ModuleSchema, to maxValueSize: Int) -> ModuleSchema {
        let limited = schema.limitingValueSize(to: maxValueSize)
        do {
            try limited.checkDefaultSizes()
        } catch {
            self.logger.error(
                "module \(schema.name) keeps a default that max-value-size now refuses: \(error)",
                metadata: ["module": "\(schema.name)"]
            )
        }
        return limited
    }

    private static func moduleName(ofFile path: String) -> String? {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        guard file.hasSuffix(".json") else { return nil }
        return String(file.dropLast(5))
    }

    /// The schemas served, by name and sorted by name (made once per load: the daemon asks for them often).
    private struct Served {
        let byName: [String: ModuleSchema]
        let sorted: [ModuleSchema]

        init(byName: [String: ModuleSchema]) {
            self.byName = byName
            self.sorted = byName.values.sorted { $0.name < $1.name }
        }
    }
}

import Glibc
import SettingsAPI
import ViperPOSIX
public import ViperSettings

/// Reads the module schemas of a directory (`config/modules/NAME.json`): one bad file never stops the others.
///
/// Every `*.json` file is read in file-name order (hidden files are skipped), parsed with ``JSONValue`` and checked
/// with ``ModuleSchema/init(json:)``. A file is rejected, with a ``SchemaError`` whose `file` is its path, when it is
/// not a regular file (path `$`, reason `cannot read the file: it is a FIFO, not a regular file`; a FIFO is never
/// waited on, a symbolic link to a regular file is read), when it is not JSON (path `$`, reason
/// `line L, column C: …`), when its schema is inconsistent (the schema's JSON path and reason), when its `module` is
/// not its file name (`NAME.json` declares `"module": "NAME"`; a file name that is no id, `t copy.json`, is to be
/// renamed, which the reason says), when an earlier file declared the same module, or
/// when it is larger than ``maximumFileSize`` (it is not read to its end).
///
/// ```swift
/// let catalog = try ModuleCatalogLoader(directory: "config/modules").load()
/// for error in catalog.errors { logger.error("\(error)") }
/// ```
public struct ModuleCatalogLoader: Sendable {
    /// The modules directory.
    public var directory: String
    /// The daemon-wide limit on a `string` or `strings` value, in bytes of UTF-8 (`max-value-size`).
    public var maxValueSize: Int

    /// The largest schema file read, 16 MiB: a module of 10,000 keys takes about 2 MiB.
    public static let maximumFileSize = 16 << 20

    /// Creates a loader of the schemas in `directory`, limiting values to `maxValueSize` bytes.
    public init(directory: String, maxValueSize: Int = ModuleSchema.defaultMaxValueSize) {
        self.directory = directory
        self.maxValueSize = maxValueSize
    }

    /// Reads every schema; blocks, so call it at start or from a thread pool.
    ///
    /// - Returns: The schemas that loaded, in file-name order, and one error per rejected file.
    /// - Throws: A ``StorageError`` naming the directory when it is missing or cannot be read.
    public func load() throws(StorageError) -> (schemas: [ModuleSchema], errors: [SchemaError]) {
        let catalog = try self.loadCatalog()
        return (catalog.schemas, catalog.errors)
    }

    /// Reads every schema as ``load()`` does, and keeps the bytes of each file that loaded.
    public func loadCatalog() throws(StorageError) -> LoadedCatalog {
        let entries: [String]
        do {
            entries = try FileOperations.directoryEntries(self.directory)
        } catch {
            throw StorageError(
                "cannot read the modules directory (--modules-dir, modules-dir): \(error.message)",
                errno: error.errno
            )
        }
        let names =
            entries
            .filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }
            .sorted()
        let paths = names.map { self.directory.hasSuffix("/") ? "\(self.directory)\($0)" : "\(self.directory)/\($0)" }
        // Files are read and checked on every core (a fleet's catalog has hundreds of them), then taken in order.
        let results = Array(zip(paths, names)).concurrentMap { path, name in
            Result { () throws(SchemaError) in try Self.schema(at: path, fileName: name) }
        }
        var schemas: [ModuleSchema] = []
        var errors: [SchemaError] = []
        var sources: [String: [UInt8]] = [:]
        var files: [String: String] = [:]
        for (index, result) in results.enumerated() {
            let path = paths[index]
            do throws(SchemaError) {
                let (schema, bytes) = try result.get()
                if let other = files[schema.name] {
                    throw SchemaError(
                        path: "$.module",
                        reason: "module '\(schema.name)' is already declared by \(other)"
                    )
                }
                files[schema.name] = path
                sources[schema.name] = bytes
                let limited = schema.limitingValueSize(to: self.maxValueSize)
                try limited.checkDefaultSizes()
                schemas.append(limited)
            } catch {
                var located = error
                located.file = path
                errors.append(located)
            }
        }
        return LoadedCatalog(schemas: schemas, errors: errors, sources: sources, files: paths.count)
    }

    /// The schema of module `name` in `bytes` (a file's content), checked as a file of the directory is.
    public static func schema(name: String, bytes: [UInt8]) throws(SchemaError) -> ModuleSchema {
        try Self.schema(bytes, fileName: "\(name).json")
    }

    /// Reads and checks one file; returns the schema and the file's bytes.
    private static func schema(at path: String, fileName: String) throws(SchemaError) -> (ModuleSchema, [UInt8]) {
        let content: [UInt8]?
        do {
            content = try RegularFile.contents(of: path, limit: Self.maximumFileSize)
        } catch .system(_, EFBIG) {
            throw SchemaError(
                path: "$",
                reason: "the file is larger than \(Self.maximumFileSize >> 20) MiB, the most a schema file may hold"
            )
        } catch {
            throw SchemaError(path: "$", reason: "cannot read the file: \(error)")
        }
        guard let bytes = content else {
            // Not there: a symbolic link to nothing is there, as a link, and names what is missing.
            var link = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(path, &link, link.count - 1)
            if length >= 0 {
                let target = String(decoding: link[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                throw SchemaError(
                    path: "$",
                    reason: "the file is a symbolic link to \(target), which does not exist"
                )
            }
            throw SchemaError(path: "$", reason: "the file disappeared while the directory was read")
        }
        return (try Self.schema(bytes, fileName: fileName), bytes)
    }

    /// Parses and checks the content of the file `fileName`.
    private static func schema(_ bytes: [UInt8], fileName: String) throws(SchemaError) -> ModuleSchema {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: bytes)
        } catch {
            throw SchemaError(path: "$", reason: error.description)
        }
        let schema = try ModuleSchema(json: json)
        let expected = String(fileName.dropLast(".json".count))
        guard schema.name == expected else {
            guard ModuleSchema.isIdentifier(expected) else {
                // No `"module"` could match it: the file is what to change.
                throw SchemaError(
                    path: "$",
                    reason: "the file name '\(fileName)' is not a module id followed by .json (an id is 1 to "
                        + "\(ModuleSchema.maximumIDLength) ASCII letters, digits, '-' and '_', starting with a "
                        + "letter): rename the file to \(schema.name).json, after the module it declares"
                )
            }
            throw SchemaError(
                path: "$.module",
                reason: "declares module '\(schema.name)' but the file is \(fileName), which must declare "
                    + "\"module\": \"\(expected)\""
            )
        }
        return schema
    }
}

/// What ``ModuleCatalogLoader/loadCatalog()`` read.
public struct LoadedCatalog: Sendable {
    /// The schemas that loaded, in file-name order.
    public var schemas: [ModuleSchema]
    /// One error per rejected file.
    public var errors: [SchemaError]
    /// The bytes of the file of each schema that loaded, by module.
    public var sources: [String: [UInt8]]
    /// How many schema files (`*.json`, hidden ones aside) the directory holds, loaded or rejected: none is a
    /// directory that serves no module at all.
    public var files: Int
}

import SettingsAPI
public import ViperSettings

/// Parses the HTTP source's document into a ``RemoteSnapshot``, rejecting it whole when it is not valid JSON or not
/// of the expected shape:
/// `{"revision": "r42", "modules": {"network": {"recommended": {"proxy.mode": "auto"}, "mandatory": {…}}}}`.
public enum HTTPDocumentParser {
    /// Parses `bytes`; the snapshot's revision is the document's `revision`, else `fallbackRevision`.
    ///
    /// - Parameter url: Where the document came from, for the messages: `document from URL is not valid JSON: …`
    ///   (`URL (redirected from SOURCE)` after redirects); without it they begin with `document`.
    public static func parse(
        _ bytes: [UInt8],
        fallbackRevision: String,
        from url: String? = nil
    ) throws(RemoteSyncError) -> RemoteSnapshot {
        let subject = url.map { "document from \($0)" } ?? "document"
        do throws(Problem) {
            return try Self.read(bytes, fallbackRevision: fallbackRevision)
        } catch {
            switch error {
            case .notJSON where bytes.starts(with: [0x1F, 0x8B]):
                throw RemoteSyncError.attempt(
                    "\(subject) is gzip-compressed data, not JSON: serve it uncompressed (the request does not accept "
                        + "gzip)"
                )
            case .notJSON(let error):
                throw RemoteSyncError.attempt("\(subject) is not valid JSON: \(error.description)")
            case .shape(let problem):
                throw RemoteSyncError.attempt("\(subject): \(problem)")
            }
        }
    }

    /// The longest `revision` a document may give, in bytes of UTF-8: the revision is stored with every change the
    /// document makes (the module's history, its state files) and shown by `status` and `watch`, so a source could
    /// otherwise grow the state files by megabytes at every change. An ETag longer than this is not used as a
    /// revision either (the document's fingerprint is).
    public static let revisionLimit = 256

    /// Why a document was rejected.
    private enum Problem: Error {
        case notJSON(JSONParseError)
        /// Valid JSON of the wrong shape, e.g. `$.modules is missing`.
        case shape(String)
    }

    /// Parses `bytes`, throwing what is wrong with them.
    private static func read(_ bytes: [UInt8], fallbackRevision: String) throws(Problem) -> RemoteSnapshot {
        let document: JSONValue
        do {
            document = try JSONValue(parsing: bytes)
        } catch {
            throw .notJSON(error)
        }
        guard case .object(let root) = document else {
            throw .shape("$ must be an object, not \(document.typeName)")
        }
        var revision = fallbackRevision
        if let value = root["revision"] {
            guard case .string(let text) = value, !text.isEmpty else {
                let actual = value == .string("") ? "an empty one" : value.typeName
                throw .shape("$.revision must be a non-empty string, not \(actual)")
            }
            guard text.utf8.count <= Self.revisionLimit else {
                throw .shape(
                    "$.revision is \(text.utf8.count) bytes long, more than \(Self.revisionLimit): a revision names a "
                        + "version of the document (a counter, a commit id), it is kept with every change it makes"
                )
            }
            revision = text
        }
        guard let modulesValue = root["modules"] else {
            throw .shape("$.modules is missing")
        }
        guard case .object(let modulesObject) = modulesValue else {
            throw .shape("$.modules must be an object, not \(modulesValue.typeName)")
        }
        var modules: [String: RemoteModuleValues] = [:]
        for (name, value) in modulesObject.sorted(by: { $0.key < $1.key }) {
            let path = "$.modules" + Self.member(name)
            guard !name.isEmpty else { throw .shape("\(path) has an empty module name") }
            guard case .object(let layers) = value else {
                throw .shape("\(path) must be an object, not \(value.typeName)")
            }
            var module = RemoteModuleValues()
            for (layer, layerValue) in layers.sorted(by: { $0.key < $1.key }) {
                let layerPath = path + Self.member(layer)
                switch layer {
                case "recommended":
                    module.recommended = try Self.values(layerValue, path: layerPath)
                case "mandatory":
                    module.mandatory = try Self.values(layerValue, path: layerPath)
                default:
                    throw .shape(
                        "\(layerPath) is not allowed; a module has only \"recommended\" and \"mandatory\""
                    )
                }
            }
            modules[name] = module
        }
        return RemoteSnapshot(revision: revision, modules: modules)
    }

    /// The values of one layer, keyed `section.item`.
    private static func values(_ value: JSONValue, path: String) throws(Problem) -> [String: JSONValue] {
        guard case .object(let members) = value else {
            throw .shape("\(path) must be an object, not \(value.typeName)")
        }
        for key in members.keys.sorted() {
            guard let dot = key.firstIndex(of: "."), dot != key.startIndex, key.index(after: dot) != key.endIndex
            else {
                throw .shape("\(path)\(Self.member(key)): keys must be section.item")
            }
        }
        return members
    }

    /// `.name` for a plain name, `["name"]` otherwise, for JSON paths in messages.
    private static func member(_ name: String) -> String {
        let plain =
            !name.isEmpty
            && name.unicodeScalars.allSatisfy {
                ($0 >= "a" && $0 <= "z") || ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9") || $0 == "_"
                    || $0 == "-"
            }
        if plain { return "." + name }
        var escaped = ""
        for character in name {
            switch character {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            default: escaped.append(character)
            }
        }
        return "[\"" + escaped + "\"]"
    }
}

import SettingsAPI
public import ViperSettings

/// Parses the HTTP source's document into a ``RemoteSnapshot``, rejecting it whole when it is not valid JSON or not
/// of the expected shape:
/// `{"revision": "r42", "modules": {"network": {"recommended": {"proxy.mode": "auto"}, "mandatory": {…}}}}`.
public enum HTTPDocumentParser {
    /// Parses `bytes`; the snapshot's revision is the document's `revision`, else `fallbackRevision`.
    public static func parse(_ bytes: [UInt8], fallbackRevision: String) throws(RemoteSyncError) -> RemoteSnapshot {
        let document: JSONValue
        do {
            document = try JSONValue(parsing: bytes)
        } catch {
            throw RemoteSyncError.attempt("document is not valid JSON: \(error.description)")
        }
        guard case .object(let root) = document else {
            throw RemoteSyncError.attempt("document: $ must be an object, not \(document.typeName)")
        }
        var revision = fallbackRevision
        if let value = root["revision"] {
            guard case .string(let text) = value, !text.isEmpty else {
                let actual = value == .string("") ? "an empty one" : value.typeName
                throw RemoteSyncError.attempt("document: $.revision must be a non-empty string, not \(actual)")
            }
            revision = text
        }
        guard let modulesValue = root["modules"] else {
            throw RemoteSyncError.attempt("document: $.modules is missing")
        }
        guard case .object(let modulesObject) = modulesValue else {
            throw RemoteSyncError.attempt("document: $.modules must be an object, not \(modulesValue.typeName)")
        }
        var modules: [String: RemoteModuleValues] = [:]
        for (name, value) in modulesObject.sorted(by: { $0.key < $1.key }) {
            let path = "$.modules" + Self.member(name)
            guard !name.isEmpty else { throw RemoteSyncError.attempt("document: \(path) has an empty module name") }
            guard case .object(let layers) = value else {
                throw RemoteSyncError.attempt("document: \(path) must be an object, not \(value.typeName)")
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
                    throw RemoteSyncError.attempt(
                        "document: \(layerPath) is not allowed; a module has only \"recommended\" and \"mandatory\""
                    )
                }
            }
            modules[name] = module
        }
        return RemoteSnapshot(revision: revision, modules: modules)
    }

    /// The values of one layer, keyed `section.item`.
    private static func values(_ value: JSONValue, path: String) throws(RemoteSyncError) -> [String: JSONValue] {
        guard case .object(let members) = value else {
            throw RemoteSyncError.attempt("document: \(path) must be an object, not \(value.typeName)")
        }
        for key in members.keys.sorted() {
            guard let dot = key.firstIndex(of: "."), dot != key.startIndex, key.index(after: dot) != key.endIndex
            else {
                throw RemoteSyncError.attempt("document: \(path)\(Self.member(key)): keys must be section.item")
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

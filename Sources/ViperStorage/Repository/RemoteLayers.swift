import SettingsAPI
import ViperSettings

/// The remote cache file of a module, `NAME.remote.json`, pretty-printed for people:
///
/// ```json
/// {
///   "format": 1,
///   "module": "network",
///   "revision": 12,
///   "recommended": {
///     "proxy.mode": "auto"
///   },
///   "mandatory": {
///     "proxy.port": 8080
///   }
/// }
/// ```
///
/// It holds the remote layers last stored by `updateRemote`, so that they survive a restart without network, and
/// the revision that update set. The module's revision after loading is the greater of this one and the one of the
/// snapshot and journal: revisions never decrease, so the greater is the one of the latest change.
struct RemoteLayers {
    /// The version of the file format written and understood.
    static let format: Int64 = 1

    /// The revision set by the remote update that wrote the file.
    var revision: Int64
    /// The recommended layer.
    var recommended: [String: SettingValue]
    /// The mandatory layer.
    var mandatory: [String: SettingValue]
    /// Keys whose stored value is not a valid setting value, skipped, as `LAYER: KEY`.
    var skippedKeys: [String] = []

    /// The file's bytes for the remote layers and revision of `state`.
    static func encode(module: String, state: ModuleState) -> [UInt8] {
        // The writer only emits raw newlines between tokens (string contents are escaped), so indenting the nested
        // objects is a plain replacement.
        func nested(_ values: [String: SettingValue]) -> String {
            JSONValue.object(values.mapValues(\.json)).prettyPrinted().replacing("\n", with: "\n  ")
        }
        var text = "{\n"
        text += "  \"format\": \(Self.format),\n"
        text += "  \"module\": \(JSONValue.string(module).serialized()),\n"
        text += "  \"revision\": \(state.revision),\n"
        text += "  \"recommended\": \(nested(state.recommended)),\n"
        text += "  \"mandatory\": \(nested(state.mandatory))\n"
        text += "}\n"
        return Array(text.utf8)
    }

    /// Reads the remote file of `module`; throws a ``StateFileError`` for text that is not JSON or has the wrong
    /// shape.
    init(decoding bytes: [UInt8], module: String) throws(StateFileError) {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: bytes)
        } catch {
            throw StateFileError(reason: error.description)
        }
        guard json.objectValue != nil else {
            throw StateFileError(reason: "expected an object, found \(json.typeName)")
        }
        guard json["format"]?.intValue == Self.format else {
            throw StateFileError(
                reason: "expected \"format\": \(Self.format), found \(json["format"]?.serialized() ?? "none")"
            )
        }
        guard let name = json["module"]?.stringValue else {
            throw StateFileError(reason: "expected a string \"module\"")
        }
        guard name == module else {
            throw StateFileError(reason: "the remote file is of module '\(name)', expected '\(module)'")
        }
        guard let revision = json["revision"]?.intValue, revision >= 0 else {
            throw StateFileError(reason: "expected a non-negative integer \"revision\"")
        }
        var skipped: [String] = []
        func layer(_ name: String) throws(StateFileError) -> [String: SettingValue] {
            guard let member = json[name], member != .null else { return [:] }
            guard let values = member.objectValue else {
                throw StateFileError(reason: "expected an object \"\(name)\", found \(member.typeName)")
            }
            var result: [String: SettingValue] = [:]
            for (key, value) in values {
                if let setting = SettingValue(stored: value) {
                    result[key] = setting
                } else {
                    skipped.append("\(name): \(key)")
                }
            }
            return result
        }
        self.revision = revision
        self.recommended = try layer("recommended")
        self.mandatory = try layer("mandatory")
        self.skippedKeys = skipped.sorted()
    }
}

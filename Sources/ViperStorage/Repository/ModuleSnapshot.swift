import SettingsAPI
import ViperSettings

/// The snapshot file of a module, `NAME.json`, pretty-printed for people:
///
/// ```json
/// {
///   "format": 1,
///   "module": "network",
///   "revision": 7,
///   "local": {
///     "proxy.port": 8080
///   }
/// }
/// ```
///
/// Other members (such as `recommended` and `mandatory`, kept elsewhere) are ignored when reading.
struct ModuleSnapshot {
    /// The version of the file format written and understood.
    static let format: Int64 = 1

    /// The module's state; only `revision` and `local` are stored here.
    var state: ModuleState
    /// Keys whose stored value is not a valid setting value, skipped.
    var skippedKeys: [String] = []

    /// The file's bytes for `state`.
    static func encode(module: String, state: ModuleState) -> [UInt8] {
        let local = JSONValue.object(state.local.mapValues(\.json)).prettyPrinted()
        // The writer only emits raw newlines between tokens (string contents are escaped), so indenting the nested
        // object is a plain replacement.
        var text = "{\n"
        text += "  \"format\": \(Self.format),\n"
        text += "  \"module\": \(JSONValue.string(module).serialized()),\n"
        text += "  \"revision\": \(state.revision),\n"
        text += "  \"local\": \(local.replacing("\n", with: "\n  "))\n"
        text += "}\n"
        return Array(text.utf8)
    }

    /// Reads a snapshot of `module`; throws a ``StateFileError`` for text that is not JSON or has the wrong shape.
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
            throw StateFileError(reason: "the snapshot is of module '\(name)', expected '\(module)'")
        }
        guard let revision = json["revision"]?.intValue, revision >= 0 else {
            throw StateFileError(reason: "expected a non-negative integer \"revision\"")
        }
        var local: [String: SettingValue] = [:]
        var skipped: [String] = []
        if let member = json["local"], member != .null {
            guard let values = member.objectValue else {
                throw StateFileError(reason: "expected an object \"local\", found \(member.typeName)")
            }
            for (key, value) in values {
                if let setting = SettingValue(stored: value) {
                    local[key] = setting
                } else {
                    skipped.append(key)
                }
            }
        }
        self.state = ModuleState(revision: revision, local: local)
        self.skippedKeys = skipped.sorted()
    }
}

/// A state file's text is not what it should be: not JSON (the reason gives line and column) or of the wrong shape.
struct StateFileError: Error, CustomStringConvertible {
    var reason: String
    var description: String { self.reason }
}

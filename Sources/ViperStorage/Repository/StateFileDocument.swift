import SettingsAPI
import ViperSettings

/// What the module's state files (`NAME.json`, `NAME.remote.json`) share: a pretty-printed object with `format`,
/// `module` and `revision`, then maps of setting values by `SECTION.ITEM` key.
struct StateFileDocument {
    /// The version of the file format written and understood.
    static let format: Int64 = 1

    /// The parsed object.
    let json: JSONValue
    /// Its `revision`.
    let revision: Int64

    /// The file's bytes: the header, the `(name, text)` string members, then each `(name, values)` member, then the
    /// `trailing` members, in order.
    static func encode(
        module: String,
        revision: Int64,
        strings: [(String, String)] = [],
        members: [(String, [String: SettingValue])],
        trailing: [(String, JSONValue)] = []
    ) -> [UInt8] {
        let header: [(key: String, value: JSONValue)] = [
            ("format", .int(Self.format)), ("module", .string(module)), ("revision", .int(revision)),
        ]
        var bytes: [UInt8] = []
        JSONValue.writeObject(
            header + strings.map { (key: $0.0, value: .string($0.1)) }
                + members.map { (key: $0.0, value: .object($0.1.mapValues(\.json))) }
                + trailing.map { (key: $0.0, value: $0.1) },
            into: &bytes,
            pretty: true
        )
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// Parses `bytes` and checks the header; `kind` names the file in errors ("snapshot", "remote file").
    ///
    /// - Throws: ``StateFileError`` for text that is not JSON, another format, or another module.
    init(decoding bytes: [UInt8], module: String, kind: String) throws(StateFileError) {
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
            throw StateFileError(reason: "the \(kind) is of module '\(name)', expected '\(module)'")
        }
        guard let revision = json["revision"]?.intValue, revision >= 0 else {
            throw StateFileError(reason: "expected a non-negative integer \"revision\"")
        }
        self.json = json
        self.revision = revision
    }

    /// The values of member `name` (empty when absent or null); keys whose value is not a valid setting value are
    /// left out and returned in `skipped`.
    ///
    /// - Throws: ``StateFileError`` when the member is not an object.
    func values(
        of name: String
    ) throws(StateFileError) -> (values: [String: SettingValue], skipped: [String]) {
        guard let member = self.json[name], member != .null else { return ([:], []) }
        guard let object = member.objectValue else {
            throw StateFileError(reason: "expected an object \"\(name)\", found \(member.typeName)")
        }
        var values: [String: SettingValue] = [:]
        var skipped: [String] = []
        for (key, value) in object {
            if let setting = SettingValue(stored: value) {
                values[key] = setting
            } else {
                skipped.append(key)
            }
        }
        return (values, skipped)
    }
}

/// A state file's text is not what it should be: not JSON (the reason gives line and column) or of the wrong shape.
struct StateFileError: Error, CustomStringConvertible {
    var reason: String
    var description: String { self.reason }
}

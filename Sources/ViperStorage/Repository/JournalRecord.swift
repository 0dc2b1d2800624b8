import SettingsAPI
import ViperSettings

/// One line of a module's journal, `NAME.journal`: a change of the local layer, compact JSON ended by a newline.
///
/// ```json
/// {"revision":8,"set":{"proxy.port":8080},"remove":["proxy.mode"],"cause":{"uid":0,"pid":42},"changes":[…]}
/// ```
///
/// `cause` and `changes` are the change's record for the module's history (see ``ChangeRecordJSON``); a line of a
/// remote update carries them too, with empty `set` and `remove`.
struct JournalRecord {
    var change: LocalChange
    /// Keys whose stored value is not a valid setting value, skipped.
    var skippedKeys: [String] = []

    init(change: LocalChange) {
        self.change = change
    }

    /// The line's bytes, newline included.
    var line: [UInt8] {
        var bytes: [UInt8] = []
        JSONValue.writeObject(
            [
                ("revision", .int(self.change.revision)),
                ("set", .object(self.change.set.mapValues(\.json))),
                ("remove", .array(self.change.remove.sorted().map { .string($0) })),
            ] + (self.change.record.map(ChangeRecordJSON.members(of:)) ?? []),
            into: &bytes,
            pretty: false
        )
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// Reads one line (without its newline); throws a ``StateFileError`` for text that is not JSON or has the wrong
    /// shape.
    init(decoding line: ArraySlice<UInt8>) throws(StateFileError) {
        let json: JSONValue
        do {
            json = try line.withUnsafeBufferPointer { buffer throws(JSONParseError) in try JSONValue(parsing: buffer) }
        } catch {
            throw StateFileError(reason: error.description)
        }
        guard json.objectValue != nil else {
            throw StateFileError(reason: "expected an object, found \(json.typeName)")
        }
        guard let revision = json["revision"]?.intValue, revision >= 0 else {
            throw StateFileError(reason: "expected a non-negative integer \"revision\"")
        }
        var change = LocalChange(revision: revision, record: ChangeRecordJSON.record(revision: revision, in: json))
        if let member = json["set"], member != .null {
            guard let values = member.objectValue else {
                throw StateFileError(reason: "expected an object \"set\", found \(member.typeName)")
            }
            for (key, value) in values {
                if let setting = SettingValue(stored: value) {
                    change.set[key] = setting
                } else {
                    self.skippedKeys.append(key)
                }
            }
        }
        if let member = json["remove"], member != .null {
            guard let keys = member.arrayValue?.compactMap(\.stringValue), keys.count == member.arrayValue?.count else {
                throw StateFileError(reason: "expected an array of strings \"remove\"")
            }
            change.remove = Set(keys)
        }
        self.change = change
        self.skippedKeys.sort()
    }
}

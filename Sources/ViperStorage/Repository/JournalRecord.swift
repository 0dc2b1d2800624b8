import SettingsAPI
import ViperSettings

/// One line of a module's journal, `NAME.journal`: a change of the local layer, compact JSON ended by a newline.
///
/// ```json
/// {"revision":8,"set":{"proxy.port":8080},"remove":["proxy.mode"],"cause":{"uid":0,"pid":42},"changes":[…]}
/// ```
///
/// `cause` and `changes` are the change's record for the module's history (see ``ChangeRecordJSON``); a line of a
/// remote update carries them too, with empty `set` and `remove`. A compaction leaves one line that only carries the
/// revision of the snapshot it wrote, `{"revision":7,"compacted":true}` (see ``compactionLine(revision:)``).
struct JournalRecord {
    var change: LocalChange
    /// Keys whose stored value is not a valid setting value, skipped.
    var skippedKeys: [String] = []
    /// Whether this is the line a compaction leaves: the snapshot holds everything up to its revision.
    var compacted = false

    /// The line a compaction to a snapshot at `revision` leaves in the emptied journal, so that the revision survives a
    /// snapshot that is later lost or unreadable (revisions never go back: a watcher's cursor or a `load
    /// --if-revision` from before must not name a later state); none at revision 0.
    static func compactionLine(revision: Int64) -> [UInt8] {
        guard revision > 0 else { return [] }
        var bytes = Array(#"{"revision":"#.utf8)
        JSONValue.int(revision).write(into: &bytes)
        bytes.append(contentsOf: #","compacted":true}"#.utf8)
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    init(change: LocalChange) {
        self.change = change
    }

    /// The line's bytes, newline included, written member by member (a line is written for every change); the
    /// members of `set` are sorted like those of any object.
    var line: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        bytes.append(contentsOf: #"{"revision":"#.utf8)
        JSONValue.int(self.change.revision).write(into: &bytes)
        bytes.append(contentsOf: #","set":"#.utf8)
        JSONValue.writeObject(
            self.change.set.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value.json) },
            into: &bytes,
            pretty: false
        )
        bytes.append(contentsOf: #","remove":"#.utf8)
        JSONValue.array(self.change.remove.sorted().map { .string($0) }).write(into: &bytes)
        if let record = self.change.record { ChangeRecordJSON.write(membersOf: record, into: &bytes) }
        bytes.append(contentsOf: "}\n".utf8)
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
        guard let members = json.objectValue else {
            throw StateFileError(reason: "expected an object, found \(json.typeName)")
        }
        // Every line the daemon writes but a compaction's has `set` and `remove`: a line that reads as JSON but lost
        // or misspelt one (a flipped byte, `"sxt"`) held a change that can no longer be read, and is corrupt, not a
        // record that changes nothing. (Members it does not know are left alone, as ever: a later version may add
        // some.)
        if json["compacted"] != .bool(true), let missing = ["set", "remove"].first(where: { members[$0] == nil }) {
            throw StateFileError(reason: "expected a member \"\(missing)\"")
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
        self.compacted = json["compacted"] == .bool(true)
        self.skippedKeys.sort()
    }
}

import SettingsAPI
import ViperSettings

/// How change records and histories are written in the state files: in a journal line (`cause` and `changes`
/// beside `revision`) and in the snapshot's `history` member.
///
/// ```json
/// {"revision": 8, "cause": {"uid": 0, "pid": 4242},
///  "changes": [{"key": "proxy.port", "old": 3128, "oldLayer": "default", "new": 8080, "layer": "local"}]}
/// ```
///
/// A cause is `{"uid": U, "pid": P}` (a client), `{"remote": "r42"}` (the remote source, `null` when its revision is
/// unknown) or `{"schema": true}` (a schema reload). A member that is missing or does not read is no record: the
/// history then restarts at that revision, which only costs watchers a resync.
enum ChangeRecordJSON {
    /// The `cause` and `changes` members of a record.
    static func members(of record: ChangeRecord) -> [(key: String, value: JSONValue)] {
        [(Self.causeMember, self.json(record.cause)), (Self.changesMember, .array(record.changes.map(self.json)))]
    }

    /// Appends the `cause` and `changes` members of a record as compact text, each preceded by a comma: the text of
    /// ``members(of:)``, written without building its objects (a journal line is written for every change).
    static func write(membersOf record: ChangeRecord, into out: inout [UInt8]) {
        out.append(UInt8(ascii: ","))
        JSONValue.string(Self.causeMember).write(into: &out)
        out.append(UInt8(ascii: ":"))
        JSONValue.writeObject(self.fields(of: record.cause), into: &out, pretty: false)
        out.append(UInt8(ascii: ","))
        JSONValue.string(Self.changesMember).write(into: &out)
        out.append(contentsOf: ":[".utf8)
        for (index, change) in record.changes.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONValue.writeObject(self.fields(of: change), into: &out, pretty: false)
        }
        out.append(UInt8(ascii: "]"))
    }

    private static let causeMember = "cause"
    private static let changesMember = "changes"

    /// The record of `revision` whose `cause` and `changes` are members of `object`; `nil` when they are absent or
    /// do not read.
    static func record(revision: Int64, in object: JSONValue) -> ChangeRecord? {
        guard let cause = object["cause"].flatMap(self.cause), let list = object["changes"]?.arrayValue else {
            return nil
        }
        var changes: [SettingChange] = []
        for element in list {
            guard let path = element["key"]?.stringValue else { return nil }
            changes.append(
                SettingChange(
                    path: path,
                    old: element["old"].flatMap(SettingValue.init(stored:)),
                    oldLayer: element["oldLayer"]?.stringValue.flatMap(Layer.init(rawValue:)),
                    new: element["new"].flatMap(SettingValue.init(stored:)),
                    layer: element["layer"]?.stringValue.flatMap(Layer.init(rawValue:))
                )
            )
        }
        // An empty list is the record of a revision that changed no effective value: kept, so that watchers resume
        // across it.
        return ChangeRecord(revision: revision, cause: cause, changes: changes)
    }

    /// The snapshot's `history` member.
    static func json(_ history: ChangeHistory) -> JSONValue {
        .object([
            "floor": .int(history.floor),
            "records": .array(
                history.records.map { record in
                    .object(
                        Dictionary(
                            uniqueKeysWithValues: [("revision", .int(record.revision))] + self.members(of: record)
                        )
                    )
                }
            ),
        ])
    }

    /// Reads a snapshot's `history` member for a module at `revision`; a history that does not read, or does not
    /// end at `revision`, restarts there.
    static func history(_ json: JSONValue?, revision: Int64) -> ChangeHistory {
        guard let json, let floor = json["floor"]?.intValue, let list = json["records"]?.arrayValue else {
            return ChangeHistory(floor: revision)
        }
        var history = ChangeHistory(floor: floor)
        for element in list {
            guard let recordRevision = element["revision"]?.intValue,
                let record = self.record(revision: recordRevision, in: element)
            else { return ChangeHistory(floor: revision) }
            history.append(record)
        }
        history.settle(at: revision)
        return history.latest == revision ? history : ChangeHistory(floor: revision)
    }

    private static func json(_ cause: ChangeCause) -> JSONValue {
        .object(Dictionary(uniqueKeysWithValues: self.fields(of: cause)))
    }

    /// The members of a cause, sorted by key.
    private static func fields(of cause: ChangeCause) -> [(key: String, value: JSONValue)] {
        switch cause {
        case .client(let uid, let pid): [("pid", .int(Int64(pid))), ("uid", .int(Int64(uid)))]
        case .remote(let revision): [("remote", revision.map { .string($0) } ?? .null)]
        case .schema: [("schema", .bool(true))]
        }
    }

    private static func cause(_ json: JSONValue) -> ChangeCause? {
        if let uid = json["uid"]?.intValue, let pid = json["pid"]?.intValue,
            let uid32 = UInt32(exactly: uid), let pid32 = Int32(exactly: pid)
        {
            return .client(uid: uid32, pid: pid32)
        }
        if let remote = json["remote"] {
            return .remote(revision: remote.stringValue)
        }
        if json["schema"] == .bool(true) { return .schema }
        return nil
    }

    private static func json(_ change: SettingChange) -> JSONValue {
        .object(Dictionary(uniqueKeysWithValues: self.fields(of: change)))
    }

    /// The members of a change, sorted by key; absent values left out.
    private static func fields(of change: SettingChange) -> [(key: String, value: JSONValue)] {
        var members: [(key: String, value: JSONValue)] = [("key", .string(change.path))]
        members.reserveCapacity(5)
        if let layer = change.layer { members.append(("layer", .string(layer.rawValue))) }
        if let new = change.new { members.append(("new", new.json)) }
        if let old = change.old { members.append(("old", old.json)) }
        if let layer = change.oldLayer { members.append(("oldLayer", .string(layer.rawValue))) }
        return members
    }
}

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
        Self.name(Self.causeMember, into: &out)
        out.append(UInt8(ascii: "{"))
        switch record.cause {
        case .client(let uid, let pid):
            Self.name(Self.pidMember, first: true, into: &out)
            JSONValue.int(Int64(pid)).write(into: &out)
            Self.name(Self.uidMember, into: &out)
            JSONValue.int(Int64(uid)).write(into: &out)
        case .remote(let revision):
            Self.name(Self.remoteMember, first: true, into: &out)
            (revision.map { .string($0) } ?? JSONValue.null).write(into: &out)
        case .schema:
            Self.name(Self.schemaMember, first: true, into: &out)
            JSONValue.bool(true).write(into: &out)
        }
        out.append(UInt8(ascii: "}"))
        Self.name(Self.changesMember, into: &out)
        out.append(UInt8(ascii: "["))
        for (index, change) in record.changes.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            // The members of ``fields(of:)``, in its order.
            out.append(UInt8(ascii: "{"))
            Self.name(Self.keyMember, first: true, into: &out)
            JSONValue.string(change.path).write(into: &out)
            if let layer = change.layer {
                Self.name(Self.layerMember, into: &out)
                JSONValue.string(layer.rawValue).write(into: &out)
            }
            if let new = change.new {
                Self.name(Self.newMember, into: &out)
                new.json.write(into: &out)
            }
            if let old = change.old {
                Self.name(Self.oldMember, into: &out)
                old.json.write(into: &out)
            }
            if let layer = change.oldLayer {
                Self.name(Self.oldLayerMember, into: &out)
                JSONValue.string(layer.rawValue).write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
    }

    /// Appends a member's name and its colon, after a comma unless it is the `first` of its object.
    private static func name(_ name: String, first: Bool = false, into out: inout [UInt8]) {
        if !first { out.append(UInt8(ascii: ",")) }
        JSONValue.string(name).write(into: &out)
        out.append(UInt8(ascii: ":"))
    }

    private static let causeMember = "cause"
    private static let changesMember = "changes"
    private static let pidMember = "pid"
    private static let uidMember = "uid"
    private static let remoteMember = "remote"
    private static let schemaMember = "schema"
    private static let keyMember = "key"
    private static let layerMember = "layer"
    private static let newMember = "new"
    private static let oldMember = "old"
    private static let oldLayerMember = "oldLayer"

    /// The record of `revision` whose `cause` and `changes` are members of `object`; `nil` when they are absent or
    /// do not read.
    static func record(revision: Int64, in object: JSONValue) -> ChangeRecord? {
        guard let cause = object[Self.causeMember].flatMap(self.cause),
            let list = object[Self.changesMember]?.arrayValue
        else {
            return nil
        }
        var changes: [SettingChange] = []
        for element in list {
            guard let path = element[Self.keyMember]?.stringValue else { return nil }
            changes.append(
                SettingChange(
                    path: path,
                    old: element[Self.oldMember].flatMap(SettingValue.init(stored:)),
                    oldLayer: element[Self.oldLayerMember]?.stringValue.flatMap(Layer.init(rawValue:)),
                    new: element[Self.newMember].flatMap(SettingValue.init(stored:)),
                    layer: element[Self.layerMember]?.stringValue.flatMap(Layer.init(rawValue:))
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
        case .client(let uid, let pid): [(Self.pidMember, .int(Int64(pid))), (Self.uidMember, .int(Int64(uid)))]
        case .remote(let revision): [(Self.remoteMember, revision.map { .string($0) } ?? .null)]
        case .schema: [(Self.schemaMember, .bool(true))]
        }
    }

    private static func cause(_ json: JSONValue) -> ChangeCause? {
        if let uid = json[Self.uidMember]?.intValue, let pid = json[Self.pidMember]?.intValue,
            let uid32 = UInt32(exactly: uid), let pid32 = Int32(exactly: pid)
        {
            return .client(uid: uid32, pid: pid32)
        }
        if let remote = json[Self.remoteMember] {
            return .remote(revision: remote.stringValue)
        }
        if json[Self.schemaMember] == .bool(true) { return .schema }
        return nil
    }

    private static func json(_ change: SettingChange) -> JSONValue {
        .object(Dictionary(uniqueKeysWithValues: self.fields(of: change)))
    }

    /// The members of a change, sorted by key; absent values left out.
    private static func fields(of change: SettingChange) -> [(key: String, value: JSONValue)] {
        var members: [(key: String, value: JSONValue)] = [(Self.keyMember, .string(change.path))]
        members.reserveCapacity(5)
        if let layer = change.layer { members.append((Self.layerMember, .string(layer.rawValue))) }
        if let new = change.new { members.append((Self.newMember, new.json)) }
        if let old = change.old { members.append((Self.oldMember, old.json)) }
        if let layer = change.oldLayer { members.append((Self.oldLayerMember, .string(layer.rawValue))) }
        return members
    }
}

/// The latest change records of a module, oldest first, kept with its state so that a watcher can resume after an
/// event it saw, also after a restart. Bounded: past ``limit`` records, the oldest are dropped.
///
/// Every revision after ``floor`` up to the last record's has its record here: a watcher whose cursor is at or after
/// the floor can be given exactly what followed it; one before it gets a resync.
public struct ChangeHistory: Sendable, Hashable {
    /// The records kept, by increasing revision.
    public private(set) var records: [ChangeRecord]
    /// The revision the history starts after.
    public private(set) var floor: Int64

    /// How many records a module keeps.
    public static let limit = 256

    public init(records: [ChangeRecord] = [], floor: Int64 = 0) {
        self.records = records
        self.floor = floor
        self.trim()
    }

    /// The revision of the last change the history knows of.
    public var latest: Int64 { self.records.last?.revision ?? self.floor }

    /// Appends the record of a revision after ``latest``; a record that is not newer is ignored.
    public mutating func append(_ record: ChangeRecord) {
        guard record.revision > self.latest else { return }
        if record.changes.isEmpty {
            self.restart(at: record.revision)
            return
        }
        self.records.append(record)
        self.trim()
    }

    /// Follows a change of the module from revision `old` to `new`: keeps `record` when the revision moved on, or
    /// restarts the history when it moved on without one (no watcher can be told what that revision changed).
    public mutating func advance(to new: Int64, from old: Int64, record: ChangeRecord?) {
        guard new > old else { return }
        if let record, record.revision == new, !record.changes.isEmpty {
            if self.latest != old { self.restart(at: old) }
            self.append(record)
        } else {
            self.restart(at: new)
        }
    }

    /// Forgets every record: the history starts after `revision` (revisions up to it were given out without a
    /// record, so no watcher can be told what they changed).
    public mutating func restart(at revision: Int64) {
        self.records.removeAll()
        self.floor = revision
    }

    /// Makes the history agree with the module's revision: when the module is past the last record (revisions given
    /// out without a record, e.g. by files written before histories were kept, or a repair that moved the revision
    /// up), the history restarts there.
    public mutating func settle(at revision: Int64) {
        if revision > self.latest { self.restart(at: revision) }
    }

    /// The records after `revision`, oldest first, or `nil` when the history does not reach back that far (or
    /// `revision` is past the latest one).
    public func records(after revision: Int64) -> ArraySlice<ChangeRecord>? {
        guard revision >= self.floor, revision <= self.latest else { return nil }
        let start = self.records.firstIndex { $0.revision > revision } ?? self.records.endIndex
        return self.records[start...]
    }

    /// The record of `revision`, if kept.
    public func record(at revision: Int64) -> ChangeRecord? {
        self.records.last { $0.revision == revision }
    }

    private mutating func trim() {
        guard self.records.count > Self.limit else { return }
        let dropped = self.records.count - Self.limit
        self.floor = self.records[dropped - 1].revision
        self.records.removeFirst(dropped)
    }
}

/// The latest change records of a module, oldest first, kept with its state so that a watcher can resume after an
/// event it saw, also after a restart. Bounded: past ``limit`` records, the oldest are dropped.
///
/// Every revision after ``floor`` up to the last record's has its record here: a watcher whose cursor is at or after
/// the floor can be given exactly what followed it; one before it gets a resync.
///
/// The records are kept in chunks of at most ``chunkSize``: a module's state is copied on every change (the state
/// before it stays in use), and a new record then copies the last chunk and the list of chunks, not every record.
public struct ChangeHistory: Sendable, Hashable {
    /// The records kept, oldest first, in chunks that are never empty.
    private var chunks: [[ChangeRecord]]
    /// The revision the history starts after.
    public private(set) var floor: Int64

    /// How many records a module keeps.
    public static let limit = 256

    /// How many records a chunk holds.
    static let chunkSize = 16

    public init(records: [ChangeRecord] = [], floor: Int64 = 0) {
        self.chunks = stride(from: 0, to: records.count, by: Self.chunkSize).map {
            Array(records[$0..<min($0 + Self.chunkSize, records.count)])
        }
        self.floor = floor
        self.trim()
    }

    /// The records kept, by increasing revision.
    public var records: [ChangeRecord] { self.chunks.flatMap { $0 } }

    public static func == (left: Self, right: Self) -> Bool {
        left.floor == right.floor && left.chunks.joined().elementsEqual(right.chunks.joined())
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(self.floor)
        for record in self.chunks.joined() { hasher.combine(record) }
    }

    /// The revision of the last change the history knows of.
    public var latest: Int64 { self.chunks.last?.last?.revision ?? self.floor }

    /// Appends the record of a revision after ``latest``; a record that is not newer is ignored. A record that
    /// changes no effective value (a value stored equal to the one in effect, a fleet layer under a local value) is
    /// kept like any other: a watcher resumes across it, told nothing.
    public mutating func append(_ record: ChangeRecord) {
        guard record.revision > self.latest else { return }
        if let last = self.chunks.indices.last, self.chunks[last].count < Self.chunkSize {
            self.chunks[last].append(record)
        } else {
            self.chunks.append([record])
        }
        self.trim()
    }

    /// Follows a change of the module from revision `old` to `new`: keeps `record` when the revision moved on, or
    /// restarts the history when it moved on without one (no watcher can be told what that revision changed).
    public mutating func advance(to new: Int64, from old: Int64, record: ChangeRecord?) {
        guard new > old else { return }
        if let record, record.revision == new {
            if self.latest != old { self.restart(at: old) }
            self.append(record)
        } else {
            self.restart(at: new)
        }
    }

    /// Forgets every record: the history starts after `revision` (revisions up to it were given out without a
    /// record, so no watcher can be told what they changed).
    public mutating func restart(at revision: Int64) {
        self.chunks.removeAll()
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
        return Array(self.chunks.joined().drop { $0.revision <= revision })[...]
    }

    /// The record of `revision`, if kept.
    public func record(at revision: Int64) -> ChangeRecord? {
        for chunk in self.chunks.reversed() {
            guard let first = chunk.first, first.revision <= revision else { continue }
            return chunk.last { $0.revision == revision }
        }
        return nil
    }

    private mutating func trim() {
        var count = self.chunks.reduce(0) { $0 + $1.count }
        while count > Self.limit {
            let dropped = min(count - Self.limit, self.chunks[0].count)
            self.floor = self.chunks[0][dropped - 1].revision
            if dropped == self.chunks[0].count {
                self.chunks.removeFirst()
            } else {
                self.chunks[0].removeFirst(dropped)
            }
            count -= dropped
        }
    }
}

/// The latest change records of a module, oldest first, kept with its state so that a watcher can resume after an
/// event it saw, also after a restart. Bounded: past ``limit`` records, ``changeLimit`` changes or ``byteLimit``
/// bytes of values in all, the oldest records are dropped (the latest is always kept, however large: a load of
/// 10,000 keys is one record). A module's snapshot holds its history, and its memory too: a bound on records alone
/// let 256 loads of 10,000 keys, or 256 sets of a 60 KB list, make a snapshot of hundreds of megabytes.
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
    /// The changes and value bytes of the records kept (``Weight``), for the bounds.
    private var weight = Weight()

    /// How many records a module keeps.
    public static let limit = 256

    /// How many changes the records kept hold in all, at most (but the latest record's).
    public static let changeLimit = 4096

    /// How many bytes of values (old and new, strings by their UTF-8) the records kept hold in all, at most (but the
    /// latest record's).
    public static let byteLimit = 4 << 20

    /// What a record costs the history: its changes, and the bytes of their values.
    struct Weight: Sendable {
        var changes = 0
        var bytes = 0

        init() {}

        init(_ record: ChangeRecord) {
            self.changes = record.changes.count
            for change in record.changes {
                self.bytes += (change.old?.byteSize ?? 0) + (change.new?.byteSize ?? 0) + change.path.utf8.count
            }
        }

        static func += (left: inout Self, right: Self) {
            left.changes += right.changes
            left.bytes += right.bytes
        }

        static func -= (left: inout Self, right: Self) {
            left.changes -= right.changes
            left.bytes -= right.bytes
        }
    }

    /// How many records a chunk holds.
    static let chunkSize = 16

    public init(records: [ChangeRecord] = [], floor: Int64 = 0) {
        self.chunks = stride(from: 0, to: records.count, by: Self.chunkSize).map {
            Array(records[$0..<min($0 + Self.chunkSize, records.count)])
        }
        self.floor = floor
        for record in records { self.weight += Weight(record) }
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
        self.weight += Weight(record)
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
        self.weight = Weight()
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
            for record in self.chunks[0].prefix(dropped) { self.weight -= Weight(record) }
            self.floor = self.chunks[0][dropped - 1].revision
            if dropped == self.chunks[0].count {
                self.chunks.removeFirst()
            } else {
                self.chunks[0].removeFirst(dropped)
            }
            count -= dropped
        }
        // Then by weight, one record at a time, down to the latest.
        while count > 1, self.weight.changes > Self.changeLimit || self.weight.bytes > Self.byteLimit {
            let oldest = self.chunks[0].removeFirst()
            self.weight -= Weight(oldest)
            self.floor = oldest.revision
            if self.chunks[0].isEmpty { self.chunks.removeFirst() }
            count -= 1
        }
    }
}

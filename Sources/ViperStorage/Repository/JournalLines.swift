/// A journal's bytes split into the good records up to the first bad line, and that line.
///
/// Only a last line without its newline is a torn append (the writer ends every record with one, in the same
/// write): a complete line that does not parse, or whose revision is below the one before it, held something
/// once, and is corrupt.
struct JournalLines {
    struct BadLine {
        /// 1-based.
        var line: Int
        /// Where the line starts in the file.
        var offset: Int
        var reason: String
        /// Whether the line is a torn append: the last, without its newline.
        var isLast: Bool
    }

    var records: [JournalRecord] = []
    var bad: BadLine?

    init(_ bytes: [UInt8]) {
        var start = 0
        var number = 0
        while start < bytes.count {
            number += 1
            let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n"))
            let end = newline ?? bytes.count
            let next = newline.map { $0 + 1 } ?? bytes.count
            let text = bytes[start..<end]
            if newline == nil {
                self.bad = BadLine(line: number, offset: start, reason: "no newline at the end", isLast: true)
                return
            }
            if !text.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }) {
                do {
                    let record = try JournalRecord(decoding: text)
                    if let previous = self.records.last?.change.revision,
                        let reason = Self.problem(record, after: previous)
                    {
                        self.bad = BadLine(line: number, offset: start, reason: reason, isLast: false)
                        return
                    }
                    self.records.append(record)
                } catch {
                    self.bad = BadLine(line: number, offset: start, reason: error.reason, isLast: false)
                    return
                }
            }
            start = next
        }
    }

    /// Why `record` cannot follow a record at revision `previous`: a revision that goes back, or one repeated by a
    /// record that changes an effective value (equal is allowed for a record that changes none: a remote update
    /// that only names a new source revision, and local changes of that kind in journals of earlier versions).
    private static func problem(_ record: JournalRecord, after previous: Int64) -> String? {
        let revision = record.change.revision
        if revision < previous { return "revision \(revision) after revision \(previous): revisions never go back" }
        if revision == previous, let changes = record.change.record?.changes, !changes.isEmpty {
            return "revision \(revision) again, with changes: a revision is never given to two states"
        }
        return nil
    }
}

/// A journal's bytes split into the good records up to the first bad line, and that line.
struct JournalLines {
    struct BadLine {
        /// 1-based.
        var line: Int
        /// Where the line starts in the file.
        var offset: Int
        var reason: String
        /// Whether nothing but this line follows the good records (a torn append).
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
                    self.records.append(try JournalRecord(decoding: text))
                } catch {
                    self.bad = BadLine(line: number, offset: start, reason: error.reason, isLast: next == bytes.count)
                    return
                }
            }
            start = next
        }
    }
}

/// A unified diff of two texts, line by line, for dry runs and the journal.
public enum LineDiff {
    /// `diff -u`-style text from `old` to `new`, labelled with `path`; empty when they are equal.
    public static func unified(old: String, new: String, path: String, context: Int = 3) -> String {
        guard old != new else { return "" }
        let a = Self.lines(old)
        let b = Self.lines(new)
        let operations = Self.operations(a, b)
        var out = "--- \(path)\n+++ \(path) (rendered)\n"
        // Group the operations into hunks with `context` unchanged lines around each change.
        var index = 0
        while index < operations.count {
            guard let firstChange = operations[index...].firstIndex(where: { $0.kind != " " }) else { break }
            let start = max(index, firstChange - context)
            var end = firstChange
            var lastChange = firstChange
            while end < operations.count {
                if operations[end].kind != " " { lastChange = end }
                if end - lastChange > 2 * context { break }
                end += 1
            }
            end = min(operations.count, lastChange + context + 1)
            let hunk = operations[start..<end]
            let oldStart = (hunk.first { $0.kind != "+" }?.oldLine ?? (hunk.first?.oldLine ?? 0))
            let newStart = (hunk.first { $0.kind != "-" }?.newLine ?? (hunk.first?.newLine ?? 0))
            let oldCount = hunk.filter { $0.kind != "+" }.count
            let newCount = hunk.filter { $0.kind != "-" }.count
            out +=
                "@@ -\(oldCount == 0 ? oldStart : oldStart + 1),\(oldCount) +\(newCount == 0 ? newStart : newStart + 1),\(newCount) @@\n"
            for operation in hunk { out += "\(operation.kind)\(operation.text)\n" }
            index = end
        }
        return Self.bounded(out)
    }

    /// The most bytes of a diff shown: a dry run's reply holds one per target, and the journal one per write.
    public static let sizeLimit = 64 << 10

    /// `diff`, cut at its last line that ends within ``sizeLimit`` bytes, with a line saying how much was left out.
    static func bounded(_ diff: String) -> String {
        let bytes = Array(diff.utf8)
        guard bytes.count > Self.sizeLimit else { return diff }
        let end = bytes[..<Self.sizeLimit].lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        return String(decoding: bytes[..<end], as: UTF8.self)
            + "… \(bytes.count - end) more bytes of the diff not shown (at most \(Self.sizeLimit >> 10) KiB are)\n"
    }

    struct Operation {
        var kind: Character
        var text: Substring
        /// Lines of the old and the new text before this one.
        var oldLine: Int
        var newLine: Int
    }

    static func lines(_ text: String) -> [Substring] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// The edit script of a longest common subsequence (quadratic: targets render small files; past a million
    /// cells, everything old is removed and everything new added).
    static func operations(_ a: [Substring], _ b: [Substring]) -> [Operation] {
        guard a.count * b.count <= 1_000_000 else {
            return a.enumerated().map { Operation(kind: "-", text: $0.element, oldLine: $0.offset, newLine: 0) }
                + b.enumerated().map { Operation(kind: "+", text: $0.element, oldLine: a.count, newLine: $0.offset) }
        }
        let width = b.count + 1
        var table = [Int](repeating: 0, count: (a.count + 1) * width)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                table[i * width + j] =
                    a[i] == b[j]
                    ? table[(i + 1) * width + j + 1] + 1 : max(table[(i + 1) * width + j], table[i * width + j + 1])
            }
        }
        var result: [Operation] = []
        var i = 0
        var j = 0
        while i < a.count || j < b.count {
            if i < a.count, j < b.count, a[i] == b[j] {
                result.append(Operation(kind: " ", text: a[i], oldLine: i, newLine: j))
                i += 1
                j += 1
            } else if i < a.count, j == b.count || table[(i + 1) * width + j] >= table[i * width + j + 1] {
                result.append(Operation(kind: "-", text: a[i], oldLine: i, newLine: j))
                i += 1
            } else {
                result.append(Operation(kind: "+", text: b[j], oldLine: i, newLine: j))
                j += 1
            }
        }
        return result
    }
}

import SettingsAPI

/// Lays out rows of cells in aligned columns, as plain lines without trailing spaces.
///
/// Widths are measured on the text (wide characters count two columns, control characters are shown
/// escaped), then each cell is padded and only its text is styled, so colour never breaks the alignment.
///
/// A column is as wide as its widest cell of at most ``maximumAlignedWidth`` columns; a wider cell overflows it
/// (the rest of its row moves right), so that one long value does not pad every other row to its width. On a
/// terminal, a shrinkable column is as wide as its widest cell, then cut to fit (see ``Column/shrinkable``).
package struct TableFormatter: Sendable {
    /// How a column's cells are padded.
    package enum Alignment: Sendable, Hashable {
        case left
        case right
    }

    /// A column: its heading (none for a table without a header row), alignment, and whether its cells may be
    /// cut short (ending in `…`) so that the table fits ``TextStyle/columns``.
    package struct Column: Sendable, Hashable {
        package var header: String
        package var alignment: Alignment
        package var shrinkable: Bool

        package init(_ header: String = "", alignment: Alignment = .left, shrinkable: Bool = false) {
            self.header = header
            self.alignment = alignment
            self.shrinkable = shrinkable
        }
    }

    /// The narrowest a shrinkable column gets.
    package static let minimumShrunkWidth = 8

    /// The widest cell a column is made as wide as; a wider one overflows its column rather than widening it for
    /// every row (in a pipe, where nothing is cut, and on a terminal in a column that is not shrinkable).
    package static let maximumAlignedWidth = 60

    /// One cell: its text and how to emphasize it.
    package struct Cell: Sendable, Hashable, ExpressibleByStringLiteral {
        package var text: String
        package var emphasis: TextStyle.Emphasis

        package init(_ text: String, _ emphasis: TextStyle.Emphasis = .none) {
            self.text = text
            self.emphasis = emphasis
        }

        package init(stringLiteral value: String) {
            self.init(value)
        }
    }

    package var columns: [Column]
    /// Spaces before every line.
    package var indent: Int
    /// Spaces between columns.
    package var spacing: Int
    package var style: TextStyle

    package init(columns: [Column], indent: Int = 0, spacing: Int = 2, style: TextStyle = .plain) {
        self.columns = columns
        self.indent = indent
        self.spacing = spacing
        self.style = style
    }

    /// Whether a header row is written: when at least one column has a heading.
    package var hasHeader: Bool { self.columns.contains { !$0.header.isEmpty } }

    /// The lines of the table: the header row first when there is one, then one line per row.
    ///
    /// A row with fewer cells than columns is padded with empty cells; extra cells are dropped.
    package func render(_ rows: [[Cell]]) -> [String] {
        var table = rows.map { row in
            self.columns.indices.map { index in
                index < row.count ? Cell(Self.printable(row[index].text), row[index].emphasis) : Cell("")
            }
        }
        if self.hasHeader {
            table.insert(self.columns.map { Cell($0.header, .strong) }, at: 0)
        }
        var widths = [Int](repeating: 0, count: self.columns.count)
        for row in table {
            for (index, cell) in row.enumerated() {
                let width = Self.width(of: cell.text)
                // A shrinkable column on a terminal is cut to fit: there its widest cell counts whole.
                let cut = self.style.columns != nil && self.columns[index].shrinkable
                guard cut || width <= Self.maximumAlignedWidth else { continue }
                widths[index] = max(widths[index], width)
            }
        }
        if let limit = self.style.columns { widths = self.fitting(widths, into: limit) }
        let margin = String(repeating: " ", count: self.indent)
        let gap = String(repeating: " ", count: self.spacing)
        return table.map { row in
            var line = margin
            for (index, cell) in row.enumerated() {
                if index > 0 { line += gap }
                let cut = self.style.columns != nil && self.columns[index].shrinkable
                let shown = cut ? Self.truncated(cell.text, to: widths[index]) : cell.text
                let padding = String(repeating: " ", count: max(0, widths[index] - Self.width(of: shown)))
                let text = self.style.apply(cell.emphasis, to: shown)
                line += self.columns[index].alignment == .left ? text + padding : padding + text
            }
            return Self.trimmingTrailingSpaces(line)
        }
    }

    /// `widths` with the shrinkable columns narrowed, widest first, until a line fits `limit` columns or every
    /// shrinkable column is at ``minimumShrunkWidth``.
    func fitting(_ widths: [Int], into limit: Int) -> [Int] {
        var widths = widths
        let fixed = self.indent + self.spacing * max(0, widths.count - 1)
        while fixed + widths.reduce(0, +) > limit {
            let candidates = widths.indices.filter {
                self.columns[$0].shrinkable && widths[$0] > Self.minimumShrunkWidth
            }
            guard let widest = candidates.max(by: { widths[$0] < widths[$1] }) else { break }
            let excess = fixed + widths.reduce(0, +) - limit
            widths[widest] = max(Self.minimumShrunkWidth, widths[widest] - excess)
        }
        return widths
    }

    /// `text` cut to `width` columns (at least one), ending in `…` when it was cut.
    package static func truncated(_ text: String, to width: Int) -> String {
        let width = max(1, width)
        guard Self.width(of: text) > width else { return text }
        var result = ""
        var used = 0
        for character in text {
            let size = Self.width(of: String(character))
            if used + size > width - 1 { break }
            result.append(character)
            used += size
        }
        return result + "…"
    }

    /// A value in a line of its own kind (`KEY: OLD -> NEW`, a watched value), with its control characters escaped
    /// (``printable(_:)``): on a terminal of `columns`, cut short (…) to half of them (at least 16), so that a
    /// long value does not fill the screen twice; whole in a pipe.
    package static func lineValue(_ text: String, columns: Int?) -> String {
        Self.fitted(Self.printable(text), to: columns.map { max(16, $0 / 2) })
    }

    /// `text` cut to `columns` (``truncated(_:to:)``), or whole when there is no width: for a line of a view, on
    /// a terminal of that width or in a pipe.
    package static func fitted(_ text: String, to columns: Int?) -> String {
        columns.map { Self.truncated(text, to: $0) } ?? text
    }

    /// The number of terminal columns `text` takes: two for East Asian wide characters and emoji,
    /// none for combining marks, one otherwise.
    package static func width(of text: String) -> Int {
        var total = 0
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .enclosingMark, .format: continue  // combining marks (any script), ZWJ, bidi marks
            default: break
            }
            switch scalar.value {
            case 0x0300...0x036F, 0x200B...0x200F, 0xFE00...0xFE0F: continue
            case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
                0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
                0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
                total += 2
            default: total += 1
            }
        }
        return total
    }

    /// `text` with line breaks, tabs and every other control character a terminal would act on (C0, DEL, C1, the
    /// line and paragraph separators: those ``QuotedText/escaped(_:)`` escapes; the bidirectional controls and the
    /// byte order mark) shown as escapes (`\n`, `\u{1b}`, `\u{202e}`),
    /// so that a cell is one line and text from a schema, a value or the daemon cannot move the cursor, clear the
    /// screen or retitle the terminal. Every renderer passes such text through it.
    package static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: Self.isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case _ where Self.isControl(scalar):
                result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `text` with what a terminal would act on shown escaped, as ``printable(_:)`` does, but its line breaks and
    /// tabs kept: for text of several lines (a message, a value that `get` prints on a terminal).
    package static func printableKeepingLineBreaks(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.split(separator: "\t", omittingEmptySubsequences: false).map { Self.printable(String($0)) }
                .joined(separator: "\t")
        }.joined(separator: "\n")
    }

    /// Whether a terminal acts on `scalar` rather than showing it: a control character (C0, DEL, C1, the line and
    /// paragraph separators), or an invisible one that reorders or hides the text around it: the bidirectional
    /// marks, embeddings, overrides and isolates (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and the byte order
    /// mark (U+FEFF), with which `a -> b` could read as `b -> a`.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        QuotedText.isInvisible(scalar) || QuotedText.escaped(scalar) != nil
    }

    private static func trimmingTrailingSpaces(_ line: String) -> String {
        var end = line.endIndex
        while end > line.startIndex, line[line.index(before: end)] == " " {
            end = line.index(before: end)
        }
        return String(line[..<end])
    }
}

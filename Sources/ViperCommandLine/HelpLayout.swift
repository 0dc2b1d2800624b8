import Glibc

/// Lays `--help` out for the terminal with hanging indents. ArgumentParser wraps the discussion to the terminal's
/// width and starts every continuation line at column 0, which breaks the tables (signals, exit statuses) on a
/// terminal narrower than they are: here each line too long is wrapped under the text of its own row instead.
enum HelpLayout {
    /// The width `--help` is laid out for: `COLUMNS`, else the terminal's, else 80 (as ArgumentParser).
    static func terminalWidth(environment: [String: String]) -> Int {
        if let columns = environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }

    /// `text` with every line longer than `columns` wrapped at spaces; its continuation lines start under the text
    /// of the row: after the row's indentation and, in a table row (`  0  stopped gracefully`), after its label and
    /// the two or more spaces that follow it; in the options, at ArgumentParser's column for their help.
    static func reflow(_ text: String, columns: Int) -> String {
        var inOptions = false
        return text.split(separator: "\n", omittingEmptySubsequences: false).flatMap { line -> [Substring] in
            let line = Substring(line)
            if line == Self.optionsHeader { inOptions = true }
            guard line.count > columns else { return [line] }
            let indent = Self.hangingIndent(of: line, columns: columns, option: inOptions)
            var lines: [Substring] = []
            var rest = line
            var width = columns
            while rest.count > width {
                let window = rest.prefix(width)
                // The last space that leaves some text on the line, else the first space after it (a long word).
                let start = rest.index(rest.startIndex, offsetBy: lines.isEmpty ? indent : 0)
                guard let cut = window[start...].lastIndex(of: " ") ?? rest[start...].firstIndex(of: " ") else {
                    break
                }
                lines.append(rest[..<cut])
                rest = rest[rest.index(after: cut)...].drop { $0 == " " }
                width = columns - indent
            }
            lines.append(rest)
            let pad = String(repeating: " ", count: indent)
            return [lines[0]] + lines.dropFirst().map { Substring(pad + $0) }
        }.joined(separator: "\n")
    }

    /// The start of the usage line.
    private static let usage = "USAGE: "

    /// The line before the options, the last section of `--help`.
    private static let optionsHeader = "OPTIONS:"

    /// The column where ArgumentParser starts an option's help after its label (its `labelColumnWidth`): a label
    /// one character shorter than that is followed by one space only.
    private static let optionHelpColumn = 26

    /// Where the text of `line` starts: after its leading spaces, and after a label followed by two spaces or more
    /// when there is one in the first half of the line's width; after `USAGE: `; for an `option` row whose label
    /// fills its column, at that column.
    private static func hangingIndent(of line: Substring, columns: Int, option: Bool) -> Int {
        // The usage line continues under its first flag, as ArgumentParser lays it out.
        if line.hasPrefix(Self.usage) { return Self.usage.count }
        let column = Self.optionHelpColumn
        if option && line.hasPrefix("  -") && line.count > column && column <= columns / 2 {
            let help = line.index(line.startIndex, offsetBy: column)
            if line[line.index(before: help)] == " " && line[help] != " " { return column }
        }
        let leading = line.prefix { $0 == " " }.count
        let body = line.dropFirst(leading)
        if let gap = body.firstRange(of: "  ") {
            let text = body[gap.upperBound...].drop { $0 == " " }
            let column = line.distance(from: line.startIndex, to: text.startIndex)
            if !text.isEmpty && column <= columns / 2 { return column }
        }
        return min(leading, columns / 2)
    }
}

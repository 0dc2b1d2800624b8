import SettingsAPI
import SettingsCLI
import SettingsCLICore
import Testing

@Suite("TableFormatter")
struct TableFormatterTests {
    @Test("aligns columns to the widest cell, right-aligns numbers, leaves no trailing spaces")
    func alignment() {
        let table = TableFormatter(columns: [.init("NAME"), .init("KEYS", alignment: .right), .init("TITLE")])
        let lines = table.render([["network", "12", "Network"], ["power", "3", ""]])
        #expect(lines == ["NAME     KEYS  TITLE", "network    12  Network", "power       3"])
    }

    @Test("a table without headings has no header row, and indent and spacing apply")
    func headerless() {
        let table = TableFormatter(columns: [.init(), .init()], indent: 2, spacing: 3)
        #expect(table.render([["a", "b"], ["ccc", "d"]]) == ["  a     b", "  ccc   d"])
    }

    @Test("styles the text of a cell but pads outside the escape sequences, so columns stay aligned")
    func styledAlignment() {
        let table = TableFormatter(columns: [.init(), .init()], style: TextStyle(isEnabled: true))
        let lines = table.render([[TableFormatter.Cell("x", .strong), "1"], ["long", "2"]])
        #expect(lines[0] == "\u{1B}[1mx\u{1B}[0m     1")
        #expect(lines[1] == "long  2")
    }

    @Test("wide characters take two columns and line breaks are shown escaped")
    func widthAndControlCharacters() {
        #expect(TableFormatter.width(of: "日本") == 4)
        #expect(TableFormatter.width(of: "e\u{301}") == 1)
        let table = TableFormatter(columns: [.init(), .init()])
        #expect(table.render([["日本", "x"], ["a\nb", "y"]]) == ["日本  x", "a\\nb  y"])
    }

    @Test("on a terminal of N columns, shrinkable cells are cut with … so that no line is wider than N")
    func fitsTheTerminal() {
        let style = TextStyle(isEnabled: false, columns: 40)
        let table = TableFormatter(columns: [.init(), .init(shrinkable: true), .init(shrinkable: true)], style: style)
        let long = String(repeating: "v", count: 60)
        let lines = table.render([["network.proxy.port", .init(long), "Port of the proxy server"], ["k", "1", "t"]])
        for line in lines { #expect(TableFormatter.width(of: line) <= 40, "\(line)") }
        #expect(lines[0].hasPrefix("network.proxy.port  v"))
        #expect(lines[0].contains("…"))
        #expect(lines[1].hasPrefix("k                   1"))
        #expect(TableFormatter(columns: table.columns).render([["a", .init(long)]])[0].hasSuffix(long))
    }

    @Test("in a pipe, a cell wider than the cap overflows its column instead of padding every other row to it")
    func longCellOverflows() {
        let table = TableFormatter(columns: [.init("KEY"), .init("VALUE"), .init("TITLE")])
        let capped = String(repeating: "c", count: TableFormatter.maximumAlignedWidth)
        let long = String(repeating: "v", count: 1_000)
        let lines = table.render([["a", "1", "x"], ["b", .init(long), "y"], ["c", "22", "z"]])
        #expect(lines == ["KEY  VALUE  TITLE", "a    1      x", "b    \(long)  y", "c    22     z"])
        // A cell as wide as the cap still sets its column's width.
        let aligned = table.render([["a", "1", "x"], ["b", .init(capped), "y"]])
        #expect(aligned[1] == "a    1" + String(repeating: " ", count: capped.count + 1) + "x")
        #expect(aligned[2] == "b    \(capped)  y")
    }

    @Test("on a terminal, an overlong cell of a column that is not shrinkable overflows it too")
    func longFixedCellOverflowsOnATerminal() {
        let style = TextStyle(isEnabled: false, columns: 80)
        let table = TableFormatter(columns: [.init(), .init(shrinkable: true)], style: style)
        let long = String(repeating: "k", count: 200)
        let lines = table.render([["a", "1"], [.init(long), "2"]])
        #expect(lines == ["a  1", "\(long)  2"])
    }

    @Test("a line is cut to the width on a terminal and whole without one")
    func fittedLines() {
        #expect(TableFormatter.fitted("abcdefghij", to: 5) == "abcd…")
        #expect(TableFormatter.fitted("abcdefghij", to: nil) == "abcdefghij")
        #expect(TableFormatter.fitted("abc", to: 0) == "…")
    }

    @Test("cutting counts wide characters as two columns")
    func truncatesWideCharacters() {
        #expect(TableFormatter.truncated("日本語テキスト", to: 6) == "日本…")
        #expect(TableFormatter.truncated("short", to: 8) == "short")
    }
}

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

    @Test("cutting counts wide characters as two columns")
    func truncatesWideCharacters() {
        #expect(TableFormatter.truncated("日本語テキスト", to: 6) == "日本…")
        #expect(TableFormatter.truncated("short", to: 8) == "short")
    }
}

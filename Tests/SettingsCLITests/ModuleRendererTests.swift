import SettingsAPI
import SettingsCLI
import SettingsCLICore
import Testing

@Suite("show: ModuleRenderer")
struct ModuleRendererTests {
    let lines = ModuleRenderer.render(Fixtures.network).split(separator: "\n", omittingEmptySubsequences: false)

    @Test("starts with the module's title, name, revision and description")
    func header() {
        #expect(self.lines[0] == "Network (network, revision 7)")
        #expect(self.lines[1] == "Proxy and name resolution for this host")
    }

    @Test("shows each section as a heading before its items, in order")
    func sectionsAsHeadings() throws {
        let proxy = try #require(self.lines.firstIndex(of: "Proxy"))
        let dns = try #require(self.lines.firstIndex(of: "Name resolution"))
        #expect(self.lines[proxy - 1].isEmpty && self.lines[dns - 1].isEmpty)
        #expect(self.lines[proxy + 1].contains("network.proxy.mode"))
        #expect(self.lines[proxy + 3].contains("network.proxy.port"))
        #expect(self.lines[dns + 1].contains("network.dns.servers"))
        #expect(proxy < dns)
    }

    @Test("marks modified items with * and locked ones with [locked], and the others with neither")
    func markers() throws {
        let mode = try #require(self.lines.first { $0.contains("network.proxy.mode") })
        let port = try #require(self.lines.first { $0.contains("network.proxy.port") })
        let host = try #require(self.lines.first { $0.contains("network.proxy.host") })
        #expect(mode.contains(" * ") && mode.contains("[locked]"))
        #expect(port.contains(" * ") && !port.contains("[locked]"))
        #expect(!host.contains("*") && !host.contains("[locked]"))
    }

    @Test("aligns values across sections and ends with the legend")
    func alignmentAndLegend() throws {
        let items = self.lines.filter { $0.hasPrefix("  network.") }
        #expect(items.count == 4)
        let withValues = items.filter { !$0.contains("network.proxy.host") }
        #expect(Set(withValues.map(valueColumn)).count == 1)
        #expect(self.lines.last.map(String.init) == ModuleRenderer.legend)
        #expect(ModuleRenderer.legend.contains("*") && ModuleRenderer.legend.contains("[locked]"))
    }

    @Test("in a pipe a long value is whole and the other rows are not padded to its width")
    func longValueInAPipe() throws {
        var network = Fixtures.network
        let value = String(repeating: "v", count: 1_000)
        network.sections[0].items[1].display = value
        let lines = ModuleRenderer.render(network).split(separator: "\n")
        let host = try #require(lines.first { $0.contains("network.proxy.host") })
        #expect(host == "  network.proxy.host   \(value)" + String(repeating: " ", count: 15) + "Proxy host")
        let port = try #require(lines.first { $0.contains("network.proxy.port") })
        #expect(port == "  network.proxy.port   8080     *            Port")
        #expect(lines.filter { $0.hasPrefix("  network.") && $0.count > 100 } == [host])
    }

    @Test("on a terminal a long value and title are cut to fit its width")
    func longValueOnATerminal() {
        var network = Fixtures.network
        network.sections[0].items[1].display = String(repeating: "v", count: 1_000)
        let text = ModuleRenderer.render(network, style: TextStyle(isEnabled: false, columns: 60))
        for line in text.split(separator: "\n") { #expect(TableFormatter.width(of: String(line)) <= 60, "\(line)") }
        #expect(text.contains("network.proxy.host   vvv"))
    }

    @Test("writes no escape sequences in plain style and some on a terminal")
    func colour() {
        #expect(!ModuleRenderer.render(Fixtures.network).contains("\u{1B}["))
        #expect(ModuleRenderer.render(Fixtures.network, style: TextStyle(isEnabled: true)).contains("\u{1B}[1m"))
    }
}

/// Where the second column (the value) of an item line starts.
private func valueColumn(_ line: Substring) -> Int {
    let body = line.drop { $0 == " " }
    let key = body.prefix { $0 != " " }
    let gap = body.dropFirst(key.count).prefix { $0 == " " }
    return line.count - body.count + key.count + gap.count
}

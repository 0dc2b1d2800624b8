import SettingsAPI
import SettingsCLI
import SettingsCLICore
import Testing

@Suite("explain: ExplainRenderer")
struct ExplainRendererTests {
    let text = ExplainRenderer.render(Fixtures.portExplained)

    @Test("lists the four layers in order and marks only the winner")
    func marksTheWinner() throws {
        let lines = self.text.split(separator: "\n")
        let header = try #require(lines.firstIndex { $0.contains("LAYER") })
        #expect(lines[header].contains("VALUE") && lines[header].contains("SOURCE"))
        let rows = lines[(header + 1)...(header + 4)]
        #expect(
            rows.map { $0.split(separator: " ").first { $0 != "*" } } == [
                "default", "recommended", "local", "mandatory",
            ]
        )
        #expect(rows.filter { $0.hasPrefix("*") }.count == 1)
        let winner = try #require(rows.first { $0.hasPrefix("*") })
        #expect(winner.contains("local") && winner.contains("8080") && winner.contains("this host"))
    }

    @Test("shows absent layers as - and the key's title, type and constraint")
    func details() {
        #expect(self.text.contains("recommended  -"))
        #expect(self.text.hasPrefix("network.proxy.port: Port\n"))
        #expect(self.text.contains("type int, 1..65535"))
        #expect(self.text.hasSuffix("* wins: network.proxy.port is 8080 (local)"))
    }
}

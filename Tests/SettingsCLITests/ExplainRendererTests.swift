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

    @Test("shows absent layers as (none) and the key's title, type and constraint")
    func details() {
        #expect(self.text.contains("recommended  (none)"))
        #expect(self.text.hasPrefix("network.proxy.port: Port\n"))
        #expect(self.text.contains("type int, 1..65535"))
        #expect(self.text.hasSuffix("* wins: network.proxy.port is 8080 (local)"))
    }

    @Test("a value that reads as the absent marker is told from an absent layer: shown as its JSON")
    func valuesLikeTheMarker() throws {
        func row(_ layer: String, in text: String) throws -> [String] {
            let line = try #require(text.split(separator: "\n").first { $0.contains(" \(layer) ") })
            return line.split(separator: " ").map(String.init)
        }
        func explained(_ value: JSONValue, display: String) -> String {
            ExplainRenderer.render(
                ExplainViewModel(
                    item: Fixtures.item("network.proxy.autoconfig-url", title: "URL", value: value, display: display),
                    layers: [
                        LayerValueViewModel(
                            layer: .default,
                            present: true,
                            value: "",
                            display: "\"\"",
                            source: "schema"
                        ),
                        LayerValueViewModel(
                            layer: .local,
                            present: true,
                            value: value,
                            display: display,
                            source: "host"
                        ),
                        LayerValueViewModel(
                            layer: .mandatory,
                            present: false,
                            value: nil,
                            display: nil,
                            source: "fleet"
                        ),
                    ],
                    winner: .local,
                    revision: 1
                )
            )
        }
        // The string "-" (the marker was "-": an absent layer and "-" read the same).
        let dash = explained("-", display: "-")
        #expect(try row("local", in: dash) == ["*", "local", "-", "host"])
        #expect(try row("mandatory", in: dash) == ["mandatory", "(none)", "fleet"])
        let none = explained("(none)", display: "(none)")
        #expect(try row("local", in: none) == ["*", "local", #""(none)""#, "host"])
        #expect(try row("mandatory", in: none) == ["mandatory", "(none)", "fleet"])
        let list = explained(["(none)"], display: "(none)")
        #expect(try row("local", in: list) == ["*", "local", #"["(none)"]"#, "host"])
    }
}

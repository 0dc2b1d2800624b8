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

    /// A string key explained, its local layer (the winner) holding `value`.
    static func explained(_ value: String) -> ExplainViewModel {
        ExplainViewModel(
            item: Fixtures.item("network.proxy.autoconfig-url", title: "URL", value: .string(value), display: value),
            layers: [
                LayerValueViewModel(layer: .default, present: true, value: "", display: "\"\"", source: "schema"),
                LayerValueViewModel(layer: .recommended, present: false, value: nil, display: nil, source: "remote"),
                LayerValueViewModel(
                    layer: .local,
                    present: true,
                    value: .string(value),
                    display: value,
                    source: "host"
                ),
                LayerValueViewModel(layer: .mandatory, present: false, value: nil, display: nil, source: "remote"),
            ],
            winner: .local,
            revision: 1,
            rejected: ["mandatory \(value): too long"],
            ignored: ["recommended \(value): too long"]
        )
    }

    @Test("on a terminal every line fits its width: long values cut with …, the winning layer still named")
    func fitsTheTerminal() throws {
        for (length, columns) in [(300, 60), (60_000, 80)] {
            let value = String(repeating: "v", count: length)
            let text = ExplainRenderer.render(
                Self.explained(value),
                style: TextStyle(isEnabled: false, columns: columns)
            )
            let lines = text.split(separator: "\n")
            for line in lines {
                #expect(TableFormatter.width(of: String(line)) <= columns, "\(columns): \(line.prefix(100))")
            }
            let local = try #require(lines.first { $0.hasPrefix("*") })
            #expect(local.hasPrefix("*  local        vvv") && local.contains("v…") && local.hasSuffix("host"))
            #expect(lines.contains { $0.hasPrefix("   default      \"\"") })
            #expect(text.hasSuffix("… (local)"))
            #expect(text.utf8.count < 1_000)
        }
    }

    @Test("in a pipe values are whole, and a long one does not pad the other layers to its width")
    func pipeKeepsValuesWhole() throws {
        let value = String(repeating: "v", count: 1_000)
        let lines = ExplainRenderer.render(Self.explained(value)).split(separator: "\n")
        let local = try #require(lines.first { $0.hasPrefix("*") })
        #expect(local == "*  local        \(value)  host")
        #expect(lines.contains("   default      \"\"      schema"))
        #expect(lines.contains("   recommended  (none)  remote"))
        #expect(lines.last == "* wins: network.proxy.autoconfig-url is \(value) (local)")
        #expect(lines.filter { $0.contains(value) }.count == 4)
    }
}

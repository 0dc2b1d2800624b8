import SettingsAPI
import Testing
import ViperTestSupport

@testable import ViperApply

@Suite("Rendering targets")
struct TargetRendererTests {
    static let values: [String: JSONValue] = [
        "network.dns.servers": ["9.9.9.9", "1.1.1.1"],
        "network.dns.cache": false,
        "network.proxy.host": "proxy.example",
        "power.buttons.lid-close": "ignore",
        "power.buttons.power-button": "ask",
        "power.idle.suspend-after": 0,
        "display.output.scale": 1.25,
    ]

    func render(_ template: String, reads: [JSONValue]) async throws -> String {
        try await TemporaryDirectory.with { directory in
            let folder = try TargetFolder(directory)
            try folder.write("t", ["reads": .array(reads), "destination": "/etc/t"], template: template)
            return TargetRenderer().render(
                try folder.target("t"),
                values: Self.values,
                revisions: ["network": 7, "power": 3]
            )
        }
    }

    @Test("lists joined with last(), booleans as sections, revisions, nothing HTML-escaped")
    func values() async throws {
        let text = try await self.render(
            """
            # network {{revision.network}}
            DNS={{#network.dns.servers}}{{.}}{{^last()}} {{/last()}}{{/network.dns.servers}}
            Cache={{#network.dns.cache}}yes{{/network.dns.cache}}{{^network.dns.cache}}no{{/network.dns.cache}}
            Host="{{network.proxy.host}}" <&>

            """,
            reads: ["network"]
        )
        #expect(text == "# network 7\nDNS=9.9.9.9 1.1.1.1\nCache=no\nHost=\"proxy.example\" <&>\n")
    }

    @Test("keys with hyphens, choices mapped with is.KEY.VALUE, ints tested with equalzero()")
    func choices() async throws {
        let text = try await self.render(
            """
            HandleLidSwitch={{power.buttons.lid-close}}
            HandlePowerKey={{#is.power.buttons.power-button.ask}}poweroff{{/is.power.buttons.power-button.ask}}
            {{#equalzero(power.idle.suspend-after)}}IdleAction=ignore{{/equalzero(power.idle.suspend-after)}}

            """,
            reads: ["power.buttons", "power.idle.suspend-after"]
        )
        #expect(text == "HandleLidSwitch=ignore\nHandlePowerKey=poweroff\nIdleAction=ignore\n")
    }

    @Test("a template sees only what its target reads")
    func onlyWhatItReads() async throws {
        let text = try await self.render("[{{display.output.scale}}][{{network.proxy.host}}]", reads: ["network.dns"])
        #expect(text == "[][]")
    }
}

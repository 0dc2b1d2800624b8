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
            return try TargetRenderer().render(
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

    static let probe: [(String, JSONValue)] = [
        ("probe.s.n", 6), ("probe.s.b", true), ("probe.s.l", ["x", "y z"]), ("probe.s.v", "text"),
        ("probe.s.d", 1.5), ("probe.t.z", .null), ("probe.t.o", ["k": ["a"], "b": false]),
    ]

    @Test(
        "a module, section or list printed as a variable renders the same bytes every time: a list joined by ',', a section as JSON with sorted keys"
    )
    func structuredVariables() async throws {
        try await TemporaryDirectory.with { directory in
            let folder = try TargetFolder(directory)
            try folder.write(
                "t",
                ["reads": ["probe"], "destination": "/etc/t"],
                template:
                    "{{probe}}\n{{probe.s}}\n{{probe.s.l}}|{{{probe.s.l}}}|{{&probe.t}}\n{{#probe.s}}{{.}}{{/probe.s}}\n"
            )
            let target = try folder.target("t")
            let expected = """
                {"s":{"b":true,"d":1.5,"l":["x","y z"],"n":6,"v":"text"},"t":{"o":{"b":false,"k":["a"]},"z":null}}
                {"b":true,"d":1.5,"l":["x","y z"],"n":6,"v":"text"}
                x,y z|x,y z|{"o":{"b":false,"k":["a"]},"z":null}
                {"b":true,"d":1.5,"l":["x","y z"],"n":6,"v":"text"}

                """
            // Dictionaries iterate in an order that changes with each instance and each process: a context built
            // afresh from the values inserted in another order must print the same.
            for round in 0..<20 {
                var values: [String: JSONValue] = [:]
                for (key, value) in round == 0 ? Self.probe : Self.probe.shuffled() { values[key] = value }
                let text = try TargetRenderer().render(target, values: values, revisions: ["probe": 1])
                #expect(text == expected, "round \(round)")
            }
        }
    }

    @Test("transforms of lists and sections: count, first, last, reversed, empty, sorted members")
    func transforms() async throws {
        let text = try await self.render(
            """
            {{count(network.dns.servers)}} {{first(network.dns.servers)}} {{last(network.dns.servers)}}
            {{#reversed(network.dns.servers)}}{{.}};{{/reversed(network.dns.servers)}}
            {{^empty(network.dns.servers)}}some{{/empty(network.dns.servers)}} {{count(network.dns)}}
            {{#sorted(network.dns)}}{{key}}={{value}};{{/sorted(network.dns)}}
            {{^network.nothing}}none{{/network.nothing}}{{#network.dns}}{{cache}}{{/network.dns}}

            """,
            reads: ["network.dns"]
        )
        #expect(
            text == """
                2 9.9.9.9 1.1.1.1
                1.1.1.1;9.9.9.9;
                some 2
                cache=false;servers=9.9.9.9,1.1.1.1;
                nonefalse

                """
        )
    }

    @Test("the revisions a file was rendered with are read back only when it holds what the values render")
    func revisionsReadBack() async throws {
        try await TemporaryDirectory.with { directory in
            let folder = try TargetFolder(directory)
            func shown(_ template: String, in file: String) throws -> [String: Int64]? {
                try folder.write(
                    "t",
                    ["reads": ["network.dns", "power.idle"], "destination": "/etc/t"],
                    template: template
                )
                return TargetRenderer().revisions(
                    in: Array(file.utf8),
                    target: try folder.target("t"),
                    values: Self.values
                )
            }
            let template =
                "# {{revision.network}}/{{revision.power}}\nDNS={{network.dns.servers}} ({{revision.network}})\n"
            #expect(try shown(template, in: "# 4/12\nDNS=9.9.9.9,1.1.1.1 (4)\n") == ["network": 4, "power": 12])
            #expect(try shown(template, in: "# 4/12\nDNS=9.9.9.9 (4)\n") == nil, "another value")
            #expect(try shown(template, in: "# 4/12\nDNS=9.9.9.9,1.1.1.1 (5)\n") == nil, "two revisions of one module")
            #expect(try shown(template, in: "# 4/12\nDNS=9.9.9.9,1.1.1.1 (4)\nmore") == nil, "more after it")
            #expect(try shown(template, in: "# /12\nDNS=9.9.9.9,1.1.1.1 ()\n") == nil, "no digits")
            #expect(try shown("r{{revision.network}}5\n", in: "r45\n") == nil, "digits that run into the marker")
            #expect(try shown("DNS={{network.dns.servers}}\n", in: "DNS=9.9.9.9,1.1.1.1\n") == [:], "none printed")
        }
    }

    @Test("a render that would print far more than a destination holds stops early and is refused, naming why")
    func renderBudget() async throws {
        try await TemporaryDirectory.with { directory in
            let folder = try TargetFolder(directory)
            // A list inside itself prints its square: 6,000 hosts, 36 million passes.
            let hosts = JSONValue.array((0..<6000).map { .string("h\($0)") })
            try folder.write(
                "square",
                ["reads": ["network.proxy"], "destination": "/etc/square"],
                template: "{{#network.proxy.hosts}}{{#network.proxy.hosts}}{{.}}{{/network.proxy.hosts}}"
                    + "{{/network.proxy.hosts}}"
            )
            let target = try folder.target("square")
            let clock = ContinuousClock()
            let start = clock.now
            #expect {
                _ = try TargetRenderer().render(target, values: ["network.proxy.hosts": hosts], revisions: [:])
            } throws: { error in
                "\(error)".contains("the template would render far more than the 16 MiB a destination may hold")
                    && "\(error)".contains("nothing was written")
            }
            // Not a timed assertion: a figure for whoever reads the log (36 million passes took ~50 s before).
            print("a refused square render took \(clock.now - start)")
            // A value printed many times is charged too: 2,000 passes over 64 KiB is 128 MiB.
            let long = JSONValue.string(String(repeating: "x", count: 65_536))
            try folder.write(
                "long",
                ["reads": ["network.proxy"], "destination": "/etc/long"],
                template: "{{#network.proxy.hosts}}{{network.proxy.long}}{{network.proxy.long}}{{/network.proxy.hosts}}"
            )
            #expect(throws: ApplyError.self) {
                try TargetRenderer().render(
                    try folder.target("long"),
                    values: ["network.proxy.hosts": hosts, "network.proxy.long": long],
                    revisions: [:]
                )
            }
            // A section's members passed over with sorted(…), nested: charged as a list's items are.
            let members = JSONValue.object(
                Dictionary(uniqueKeysWithValues: (0..<10).map { ("m\($0)", JSONValue.int(Int64($0))) })
            )
            let nested =
                Array(repeating: "{{#sorted(network.proxy.members)}}", count: 8).joined() + "{{key}}"
                + Array(repeating: "{{/sorted(network.proxy.members)}}", count: 8).joined()
            try folder.write("sorted", ["reads": ["network.proxy"], "destination": "/etc/sorted"], template: nested)
            #expect(throws: ApplyError.self) {
                try TargetRenderer().render(
                    try folder.target("sorted"),
                    values: ["network.proxy.members": members],
                    revisions: [:]
                )
            }
            // A list of 30,000 items, printed once with a few KiB of text around it, renders.
            let many = JSONValue.array((0..<30_000).map { .string("10.0.\($0 / 256).\($0 % 256)") })
            try folder.write(
                "once",
                ["reads": ["network.proxy"], "destination": "/etc/once"],
                template: String(repeating: "# comment\n", count: 300)
                    + "{{#network.proxy.hosts}}{{.}} {{uppercased(.)}}\n{{/network.proxy.hosts}}"
            )
            let text = try TargetRenderer().render(
                try folder.target("once"),
                values: ["network.proxy.hosts": many],
                revisions: [:]
            )
            #expect(text.hasSuffix("10.0.117.47 10.0.117.47\n"))
            #expect(text.split(separator: "\n").count == 30_300)
        }
    }

    @Test("a name inside a section over a string is looked up around it, as before strings were charged")
    func sectionOverString() async throws {
        let text = try await self.render(
            "{{#network.proxy.host}}[{{network.dns.cache}}|{{text}}|{{budget}}|{{.}}]{{/network.proxy.host}}",
            reads: ["network"]
        )
        #expect(text == "[false|||proxy.example]")
    }
}

import SettingsAPI
import Testing
import ViperTestSupport

@testable import ViperApply

/// What to fix in a target that loaded, once the daemon's values are known.
@Suite("Target warnings")
struct TargetWarningsTests {
    static let values: [String: JSONValue] = [
        "probe.s.n": 6, "probe.s.l": ["x", "y"], "probe.s.v": "text", "probe.s.o": ["k": 1], "network.dns.cache": true,
    ]

    func reasons(_ template: String, reads: [JSONValue]) async throws -> [String] {
        try await TemporaryDirectory.with { directory in
            let folder = try TargetFolder(directory)
            try folder.write("t", ["reads": .array(reads), "destination": "/etc/t"], template: template)
            return TargetWarnings.reasons(for: try folder.target("t"), values: Self.values)
        }
    }

    @Test("a module, a section, an object or a list printed as a variable is warned about, with the fix")
    func structuredVariables() async throws {
        let reasons = try await self.reasons(
            "{{probe}} {{probe.s}} {{{probe.s.l}}} {{&probe.s.o}} {{probe.s.v}} {{#probe.s}}{{n}}{{/probe.s}}",
            reads: ["probe"]
        )
        #expect(
            reasons == [
                "the template prints {{probe}}, a module: it renders as JSON with its keys sorted; name one of its"
                    + " keys ({{probe.KEY}}), or enter it: {{#probe}}…{{/probe}}",
                "the template prints {{probe.s}}, a section: it renders as JSON with its keys sorted; name one of its"
                    + " keys ({{probe.s.KEY}}), or enter it: {{#probe.s}}…{{/probe.s}}",
                "the template prints {{probe.s.l}}, a list: it renders as its items joined by ','; to choose the"
                    + " separator, iterate it: {{#probe.s.l}}{{.}}{{^last()}} {{/last()}}{{/probe.s.l}}",
                "the template prints {{probe.s.o}}, a section: it renders as JSON with its keys sorted; name one of"
                    + " its keys ({{probe.s.o.KEY}}), or enter it: {{#probe.s.o}}…{{/probe.s.o}}",
            ]
        )
    }

    @Test("a module the daemon does not serve is not warned about (the target fails instead); a missing key is")
    func moduleNotServed() async throws {
        let reasons = try await self.reasons(
            "{{gone.s.k}} {{gone}} {{probe.s.nope}} {{network.dns}}",
            reads: ["gone", "probe.s.missing", "probe.s.n"]
        )
        #expect(
            reasons == [
                "'reads' names probe.s.missing, which the settings daemon does not have: it renders as empty",
                "the template names probe.s.nope, which the settings daemon does not have: it renders as empty",
                "the template names network.dns, which 'reads' leaves out: it renders as empty",
            ]
        )
    }

    @Test("is.KEY.CHOICE with a key the daemon does not have, or that reads leaves out, is never true: warned about")
    func choiceOfUnknownKey() async throws {
        let reasons = try await self.reasons(
            "{{#is.probe.s.nosuch.x}}a{{/is.probe.s.nosuch.x}}{{^is.network.dns.cache.x}}b{{/is.network.dns.cache.x}}"
                + "{{#is.probe.s.v.text}}c{{/is.probe.s.v.text}}{{#is.gone.s.k.x}}d{{/is.gone.s.k.x}}",
            reads: ["probe"]
        )
        #expect(
            reasons == [
                "the template names is.probe.s.nosuch.x, but the settings daemon has no key probe.s.nosuch: it is never"
                    + " true",
                "the template names is.network.dns.cache.x, but 'reads' leaves network.dns.cache out: it is never true",
                "the template names is.gone.s.k.x, but the settings daemon serves no module gone: it is never true",
            ]
        )
    }

    @Test(
        "a name outside of every section whose module is not served, or not read, is warned about; inside one it may be a member"
    )
    func topLevelNames() async throws {
        let reasons = try await self.reasons(
            "X={{netwrok.dns.cache}} B={{foo}} D={{#is.nosuch.x.y}}d{{/is.nosuch.x.y}} I={{network}}"
                + " F={{revision.nosuch}} R={{revision.probe}} {{#probe.s.o}}{{k}}{{netwrok}}{{/probe.s.o}} {{.}}",
            reads: ["probe"]
        )
        #expect(
            reasons == [
                "the template names netwrok.dns.cache, but the settings daemon serves no module netwrok: it renders as"
                    + " empty",
                "the template names foo, but the settings daemon serves no module foo: it renders as empty",
                "the template names is.nosuch.x.y, but the settings daemon serves no module nosuch: it is never true",
                "the template names network, a module 'reads' leaves out: it renders as empty",
                "the template names revision.nosuch, but 'reads' names nothing of module nosuch: it renders as empty",
            ]
        )
        #expect(TemplateNames.topLevel("{{#a}}{{b}}{{^c}}{{d}}{{/c}}{{/a}}{{e}}{{{f}}}{{! g}}") == ["a", "e", "f"])
        // An inverted section, or one over a transform, enters no value: the names in it are at the top.
        #expect(
            TemplateNames.topLevel("{{^a}}{{b}}{{/a}}{{#empty(c)}}{{d}}{{#e}}{{f}}{{/e}}{{/empty(c)}}")
                == ["a", "b", "c", "d", "e"]
        )
    }

    @Test("a transform swift-mustache does not have is warned about: its section would silently never render")
    func unknownTransform() async throws {
        let reasons = try await self.reasons(
            "{{^equalzer(probe.s.n)}}a{{/equalzer(probe.s.n)}}{{#equalzero(probe.s.n)}}b{{/equalzero(probe.s.n)}}"
                + "{{#probe.s.l}}{{.}}{{^last()}},{{/last()}}{{/probe.s.l}}{{#empty(reversed(probe.s.l))}}{{/empty(reversed(probe.s.l))}}",
            reads: ["probe"]
        )
        #expect(reasons.count == 1)
        #expect(
            reasons.first?.hasPrefix("the template applies equalzer(…), which is no transform: it gives nothing")
                == true
        )
    }
}

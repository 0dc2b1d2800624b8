import Testing

@testable import ViperApply

/// The names a template looks up, and its tags, read from its source.
@Suite("Template names")
struct TemplateNamesTests {
    @Test("variables, sections, inverted sections, triple braces and transform arguments; not comments or partials")
    func scan() {
        let source = """
            DNS={{#network.dns.servers}}{{.}}{{^last()}} {{/last()}}{{/network.dns.servers}}
            {{! network.comment.ignored }}{{> partial.name}}{{{ network.proxy.host }}}:{{& network.proxy.port}}
            {{#equalzero(power.idle.suspend-after)}}never{{/equalzero(power.idle.suspend-after)}}
            {{^network.dns.cache}}no{{/network.dns.cache}} {{ spaced.name.here }}
            {{=<% %>=}} <% after.delimiters %> {{ not.a.tag }} <%={{ }}=%>{{back.to.braces}}
            """
        #expect(
            TemplateNames.scan(source) == [
                "network.dns.servers", "network.proxy.host", "network.proxy.port", "power.idle.suspend-after",
                "network.dns.cache", "spaced.name.here", "after.delimiters", "back.to.braces",
            ]
        )
    }

    @Test("the names printed as they are: variables, triple braces and &, not sections nor transform arguments")
    func printed() {
        let source = """
            {{probe}} {{#probe.s}}{{.}}{{/probe.s}} {{{probe.s.l}}} {{&probe.t}} {{count(probe.s.l)}} {{^probe.u}}{{/probe.u}}
            """
        #expect(TemplateNames.printed(source) == ["probe", "probe.s.l", "probe.t"])
    }

    @Test("tags have their sigil, content and position; a tag the template ends in is found where it opens")
    func tags() {
        let tags = TemplateTags(scanning: "a {{> x }}\n  {{#s}}{{{v}}}{{/s}}\n{{probe.s.v")
        #expect(
            tags.tags == [
                .init(sigil: ">", content: "x", opening: "{{", line: 1, column: 3),
                .init(sigil: "#", content: "s", opening: "{{", line: 2, column: 3),
                .init(sigil: "{", content: "v", opening: "{{", line: 2, column: 9),
                .init(sigil: "/", content: "s", opening: "{{", line: 2, column: 16),
            ]
        )
        #expect(tags.unclosed == .init(opening: "{{", closing: "}}", line: 3, column: 1))
        let delimited = TemplateTags(scanning: "{{=<% %>=}}\n<%> x%> <%y")
        #expect(delimited.tags.last == .init(sigil: ">", content: "x", opening: "<%", line: 2, column: 1))
        #expect(delimited.unclosed == .init(opening: "<%", closing: "%>", line: 2, column: 9))
    }
}

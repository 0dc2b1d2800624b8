import Testing

@testable import ViperApply

/// The names a template looks up, read from its source.
@Suite("Template names")
struct TemplateNamesTests {
    @Test("variables, sections, inverted sections, triple braces and transform arguments; not comments or partials")
    func scan() {
        let source = """
            DNS={{#network.dns.servers}}{{.}}{{^last()}} {{/last()}}{{/network.dns.servers}}
            {{! network.comment.ignored }}{{> partial.name}}{{{ network.proxy.host }}}:{{& network.proxy.port}}
            {{#equalzero(power.idle.suspend-after)}}never{{/equalzero(power.idle.suspend-after)}}
            {{^network.dns.cache}}no{{/network.dns.cache}} {{ spaced.name.here }}
            {{=<% %>=}} <% after.delimiters.ignored %> {{ also.ignored }}
            """
        #expect(
            TemplateNames.scan(source) == [
                "network.dns.servers", "network.proxy.host", "network.proxy.port", "power.idle.suspend-after",
                "network.dns.cache", "spaced.name.here",
            ]
        )
    }
}

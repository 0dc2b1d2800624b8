import Mustache
public import SettingsAPI

/// Renders a target's template from the effective values it reads.
///
/// The template sees every value at its key's path, `{{network.dns.cache}}`; a list is a section,
/// `{{#network.dns.servers}}{{.}}{{^last()}} {{/last()}}{{/network.dns.servers}}`; for a string value,
/// `is.KEY.VALUE` is true (`{{#is.power.buttons.power-button.ask}}…{{/…}}`), so that a template can map choices;
/// `revision.MODULE` is the module's revision. Nothing is HTML-escaped. A list printed as a variable
/// (`{{network.dns.servers}}`) is its items joined by `,`, a module or section printed so (`{{network.dns}}`) is
/// JSON with its keys sorted: the same bytes in every process (``TemplateList``, ``TemplateSection``).
public struct TargetRenderer: Sendable {
    public init() {}

    /// What rendering `target` gives with `values` (key → effective value) and `revisions` (module → revision);
    /// throws when the render would print far more than a destination may hold (``RenderBudget``), stopped early.
    public func render(
        _ target: ApplyTarget,
        values: [String: JSONValue],
        revisions: [String: Int64]
    ) throws(ApplyError) -> String {
        let (rendered, budget) = Self.render(target, values: values, revisions: revisions.mapValues { .int($0) })
        guard !budget.exceeded else {
            throw .renderTooLarge(
                """
                the template would render far more than the \(DestinationFile.sizeLimit >> 20) MiB a destination may \
                hold (stopped after \(budget.passes) passes over its sections and \(budget.charged >> 20) MiB: a \
                section over a long list inside another one?): nothing was written
                """
            )
        }
        return rendered
    }

    /// The revisions `existing` was rendered with, by module: the template is rendered with a marker in place of each
    /// `revision.MODULE`, and `existing` must match that, each marker standing for the digits of one revision (the
    /// same wherever it is printed). `nil` when it does not match: it shows other values, or a transform of a
    /// revision or digits that run into a marker make it ambiguous. A module whose revision the template does not
    /// print is missing from the result.
    public func revisions(in existing: [UInt8], target: ApplyTarget, values: [String: JSONValue]) -> [String: Int64]? {
        var markers: [String: JSONValue] = [:]
        for module in target.modules { markers[module] = .string(RevisionPattern.marker(module)) }
        let (rendered, budget) = Self.render(target, values: values, revisions: markers)
        guard !budget.exceeded else { return nil }
        return RevisionPattern(rendered).match(existing)
    }

    /// The keys of `values` that `target` reads, sorted.
    public func keys(of target: ApplyTarget, in values: [String: JSONValue]) -> [String] {
        values.keys.filter(target.reads(key:)).sorted()
    }

    /// The template rendered from `values` and `revisions` (module → what `revision.MODULE` prints), with the budget
    /// it was held to: a render whose budget is exceeded was cut short.
    private static func render(
        _ target: ApplyTarget,
        values: [String: JSONValue],
        revisions: [String: JSONValue]
    ) -> (String, RenderBudget) {
        let budget = RenderBudget(sectionSize: target.sectionSize)
        let context = Self.context(for: target, values: values, revisions: revisions, budget: budget)
        return (target.template.render(context), budget)
    }

    static func context(
        for target: ApplyTarget,
        values: [String: JSONValue],
        revisions: [String: JSONValue],
        budget: RenderBudget
    ) -> TemplateSection {
        var tree = Node()
        var choices = Node()
        for (key, value) in values where target.reads(key: key) {
            let path = key.split(separator: ".").map(String.init)
            tree.insert(value, at: path[...])
            if let text = value.stringValue {
                choices.insert(.object([text: true]), at: path[...])
            }
        }
        var context = tree.object
        context["is"] = .object(choices.object)
        var byModule: [String: JSONValue] = [:]
        for module in target.modules { byModule[module] = revisions[module] ?? .int(0) }
        context["revision"] = .object(byModule)
        return TemplateSection(context, budget: budget)
    }

    /// What the template sees for `value`: a list and an object print the same in every process (``TemplateList``,
    /// ``TemplateSection``); null is an empty string.
    static func mustacheValue(_ value: JSONValue, budget: RenderBudget) -> Any {
        switch value {
        case .null: return ""
        case .bool(let flag): return flag
        case .int(let number): return Int(number)
        case .double(let number): return number
        case .string(let text): return TemplateText(text: text, budget: budget)
        case .array(let elements): return TemplateList(elements, budget: budget)
        case .object(let members): return TemplateSection(members, budget: budget)
        }
    }

    /// A tree of JSON objects built from dotted paths.
    struct Node {
        var leaves: [String: JSONValue] = [:]
        var children: [String: Node] = [:]

        mutating func insert(_ value: JSONValue, at path: ArraySlice<String>) {
            guard let first = path.first else { return }
            if path.count == 1 {
                self.leaves[first] = value
            } else {
                self.children[first, default: Node()].insert(value, at: path.dropFirst())
            }
        }

        var object: [String: JSONValue] {
            var result = self.leaves
            for (name, child) in self.children { result[name] = .object(child.object) }
            return result
        }
    }
}

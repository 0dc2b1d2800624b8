import Mustache
import SettingsAPI

/// A module, a section or an object value as a template sees it: entered as a section (`{{#network.dns}}{{cache}}
/// {{/network.dns}}`) or named through (`{{network.dns.cache}}`), and printed as a variable (`{{network.dns}}`) as
/// JSON with its keys sorted: the same bytes in every process, where Swift's description of a dictionary would
/// print its keys in an order that changes with each start.
struct TemplateSection: MustacheParent, MustacheCustomRenderable, MustacheTransformable {
    /// The members, as the template sees them.
    var members: [String: Any]
    /// The members, to print them.
    var value: [String: JSONValue]
    /// What the render may still print.
    let budget: RenderBudget

    init(_ value: [String: JSONValue], budget: RenderBudget) {
        self.value = value
        self.budget = budget
        self.members = value.mapValues { TargetRenderer.mustacheValue($0, budget: budget) }
    }

    func child(named name: String) -> Any? {
        self.members[name]
    }

    /// The members as a JSON object, keys sorted.
    var renderText: String {
        self.budget.print(JSONValue.object(self.value).serialized())
    }

    var isNull: Bool { false }

    /// swift-mustache's transforms of a dictionary: `count`, `empty`, and `enumerated` and `sorted`, both the
    /// members sorted by key (`{{#sorted(network.dns)}}{{key}}={{value}}{{/sorted(network.dns)}}`).
    func transform(_ name: String) -> Any? {
        switch name {
        case "count": self.members.count
        case "empty": self.members.isEmpty
        case "enumerated", "sorted":
            // Each member a pass over the section, its key printed as a value: charged to the budget, as a list is.
            TemplateList(
                items: self.members.sorted { $0.key < $1.key }.map { member -> Any in
                    (key: TemplateText(text: member.key, budget: self.budget), value: member.value)
                },
                budget: self.budget
            )
        default: nil
        }
    }
}

import Mustache
import SettingsAPI

/// A list value as a template sees it: a section repeated for each item
/// (`{{#network.dns.servers}}{{.}}{{^last()}} {{/last()}}{{/network.dns.servers}}`), and printed as a variable
/// (`{{network.dns.servers}}`) as its items joined by `,`, as mustache.js and Handlebars print a list: the same
/// bytes in every process, where Swift's description of an array would print `["a", "b"]`.
struct TemplateList: MustacheSequence, MustacheCustomRenderable, MustacheTransformable {
    /// The items, as the template sees them.
    var items: [Any]
    /// The list, to print it.
    var value: [JSONValue]
    /// What the render may still print.
    let budget: RenderBudget
    /// The text printed for the list, made once: a list printed in a section over itself is printed at every pass.
    private let text = TextCache()

    final class TextCache {
        var text: String?
    }

    /// The separator of a list printed as a variable.
    static let separator = ","

    init(_ value: [JSONValue], budget: RenderBudget) {
        self.value = value
        self.budget = budget
        self.items = value.map { TargetRenderer.mustacheValue($0, budget: budget) }
    }

    /// A sequence of `items` that are no JSON list (a section's members, `sorted(…)`), printed as a variable as
    /// nothing.
    init(items: [Any], budget: RenderBudget) {
        self.value = []
        self.budget = budget
        self.items = items
    }

    /// The items, each charged to the budget as one pass over the section: none once it is spent.
    struct Iterator: IteratorProtocol {
        var items: IndexingIterator<[Any]>
        let budget: RenderBudget

        mutating func next() -> Any? {
            guard let item = self.items.next(), self.budget.pass() else { return nil }
            return item
        }
    }

    func makeIterator() -> Iterator {
        Iterator(items: self.items.makeIterator(), budget: self.budget)
    }

    /// The list backwards, its items as they are (not made again).
    private var reversed: TemplateList {
        var list = TemplateList(items: self.items.reversed(), budget: self.budget)
        list.value = self.value.reversed()
        return list
    }

    /// The items printed one after the other, `,` between them.
    var renderText: String {
        if self.text.text == nil { self.text.text = Self.text(of: .array(self.value)) }
        return self.budget.print(self.text.text!)
    }

    var isNull: Bool { false }

    /// swift-mustache's transforms of an array: `first`, `last`, `reversed`, `count`, `empty`.
    func transform(_ name: String) -> Any? {
        switch name {
        case "first": self.items.first
        case "last": self.items.last
        case "reversed": self.reversed
        case "count": self.items.count
        case "empty": self.items.isEmpty
        default: nil
        }
    }

    /// How a value prints as a variable: a string as it is, null as nothing, a list as its items joined by `,`,
    /// a section as JSON with its keys sorted, any other value as JSON writes it.
    static func text(of value: JSONValue) -> String {
        switch value {
        case .null: ""
        case .string(let text): text
        case .array(let items): items.map(Self.text(of:)).joined(separator: Self.separator)
        default: value.serialized()
        }
    }
}

import Mustache

/// A string value as a template sees it: printed as it is, and charged to the render's ``RenderBudget``; its
/// transforms are a string's (`{{uppercased(network.proxy.mode)}}`), their text charged too.
struct TemplateText: MustacheCustomRenderable, MustacheTransformable, MustacheParent {
    var text: String
    /// What the render may still print.
    let budget: RenderBudget

    var renderText: String {
        self.budget.print(self.text)
    }

    var isNull: Bool { false }

    /// None: a name inside a section over a string is looked up in the sections around it, as for a `String` (not
    /// among this type's own properties).
    func child(named name: String) -> Any? { nil }

    func transform(_ name: String) -> Any? {
        switch self.text.transform(name) {
        case let text as String: TemplateText(text: text, budget: self.budget)
        case let text as Substring: TemplateText(text: String(text), budget: self.budget)
        case let other: other
        }
    }
}

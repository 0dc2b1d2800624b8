import Mustache
public import SettingsAPI

/// Renders a target's template from the effective values it reads.
///
/// The template sees every value at its key's path, `{{network.dns.cache}}`; a list is a section,
/// `{{#network.dns.servers}}{{.}}{{^last()}} {{/last()}}{{/network.dns.servers}}`; for a string value,
/// `is.KEY.VALUE` is true (`{{#is.power.buttons.power-button.ask}}…{{/…}}`), so that a template can map choices;
/// `revision.MODULE` is the module's revision. Nothing is HTML-escaped.
public struct TargetRenderer: Sendable {
    public init() {}

    /// What rendering `target` gives with `values` (key → effective value) and `revisions` (module → revision).
    public func render(_ target: ApplyTarget, values: [String: JSONValue], revisions: [String: Int64]) -> String {
        target.template.render(Self.context(for: target, values: values, revisions: revisions))
    }

    /// The keys of `values` that `target` reads, sorted.
    public func keys(of target: ApplyTarget, in values: [String: JSONValue]) -> [String] {
        values.keys.filter(target.reads(key:)).sorted()
    }

    static func context(
        for target: ApplyTarget,
        values: [String: JSONValue],
        revisions: [String: Int64]
    ) -> [String: Any] {
        var tree = Node()
        var choices = Node()
        for (key, value) in values where target.reads(key: key) {
            let path = key.split(separator: ".").map(String.init)
            tree.insert(Self.mustacheValue(value), at: path[...])
            if let text = value.stringValue {
                choices.insert([text: true] as [String: Any], at: path[...])
            }
        }
        var context = tree.dictionary
        context["is"] = choices.dictionary
        var byModule: [String: Any] = [:]
        for module in target.modules { byModule[module] = Int(revisions[module] ?? 0) }
        context["revision"] = byModule
        return context
    }

    static func mustacheValue(_ value: JSONValue) -> Any {
        switch value {
        case .null: return ""
        case .bool(let flag): return flag
        case .int(let number): return Int(number)
        case .double(let number): return number
        case .string(let text): return text
        case .array(let elements): return elements.map(Self.mustacheValue)
        case .object(let members): return members.mapValues(Self.mustacheValue)
        }
    }

    /// A tree of dictionaries built from dotted paths.
    struct Node {
        var leaves: [String: Any] = [:]
        var children: [String: Node] = [:]

        mutating func insert(_ value: Any, at path: ArraySlice<String>) {
            guard let first = path.first else { return }
            if path.count == 1 {
                self.leaves[first] = value
            } else {
                self.children[first, default: Node()].insert(value, at: path.dropFirst())
            }
        }

        var dictionary: [String: Any] {
            var result = self.leaves
            for (name, child) in self.children { result[name] = child.dictionary }
            return result
        }
    }
}

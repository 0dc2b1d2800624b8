public import SettingsAPI

/// What to fix in a target that loaded and is applied all the same, once the daemon's values are known: a `reads`
/// entry or a key the template names that the daemon does not have, or that `reads` leaves out (rendered as
/// empty, or never true in `is.KEY.CHOICE`), and a list or section the template prints as a variable (rendered in a stable form, but seldom what a
/// configuration file wants).
///
/// A target that reads a module the daemon does not serve is not rendered at all (the applier fails it saying
/// so): its names in that module are not warned about here.
public enum TargetWarnings {
    /// swift-mustache's transforms, of every kind of value and of a list's items (`first()`, `index()`…).
    static let transforms: Set<String> = [
        "capitalized", "count", "empty", "enumerated", "equalzero", "even", "first", "index", "last", "lowercased",
        "minusone", "odd", "plusone", "reversed", "sorted", "uppercased",
    ]

    /// The reasons, in words, for `target` with the daemon's `values` (key → value).
    public static func reasons(for target: ApplyTarget, values: [String: JSONValue]) -> [String] {
        let keys = values.keys
        func known(_ name: String) -> Bool { keys.contains { $0 == name || $0.hasPrefix(name + ".") } }
        let modules = Set(keys.map(ApplyTarget.module(of:)))
        func read(_ name: String) -> Bool {
            target.reads(key: name) || target.reads.contains { $0.hasPrefix(name + ".") }
        }
        // A module not served at all makes the target fail, with that reason; nothing renders empty.
        let reads = target.reads.filter { modules.contains(ApplyTarget.module(of: $0)) && !known($0) }.map { read in
            "'reads' names \(read), which the settings daemon does not have: it renders as empty"
        }
        // A dotted name under a module the daemon has is a key or section; others (`.`, a name inside a section,
        // `is.…`, `revision.…`) are left alone.
        let names = target.templateNames.filter { $0.contains(".") && modules.contains(ApplyTarget.module(of: $0)) }
        let template = names.compactMap { name -> String? in
            if !known(name) {
                return "the template names \(name), which the settings daemon does not have: it renders as empty"
            }
            return read(name) ? nil : "the template names \(name), which 'reads' leaves out: it renders as empty"
        }
        // `is.KEY.CHOICE` is true when KEY holds CHOICE: with a KEY the daemon does not have, or that 'reads' leaves
        // out, it is never true (a misspelt key would silently take the other branch).
        let choices = target.templateNames.compactMap { name -> String? in
            guard let key = TemplateNames.choiceKey(name), modules.contains(ApplyTarget.module(of: key)) else {
                return nil
            }
            if !known(key) {
                return "the template names \(name), but the settings daemon has no key \(key): it is never true"
            }
            return read(key) ? nil : "the template names \(name), but 'reads' leaves \(key) out: it is never true"
        }
        // A transform swift-mustache does not have gives nothing: its section never renders, its inverted section
        // always does (a misspelt `equalzer(…)` silently took the other branch).
        let transforms = target.transformNames.filter { !Self.transforms.contains($0) }.map { name in
            "the template applies \(name)(…), which is no transform: it gives nothing (transforms: "
                + Self.transforms.sorted().joined(separator: ", ") + ")"
        }
        // A list, section or module printed as a variable. A name without a dot counts only as a module.
        let printed = target.printedNames.filter { name in
            modules.contains(ApplyTarget.module(of: name)) && read(name) && (name.contains(".") || !keys.contains(name))
        }
        let structured = printed.compactMap { name -> String? in
            if case .array = values[name] {
                return "the template prints {{\(name)}}, a list: it renders as its items joined by"
                    + " '\(TemplateList.separator)'; to choose the separator, iterate it:"
                    + " {{#\(name)}}{{.}}{{^last()}} {{/last()}}{{/\(name)}}"
            }
            let isSection: Bool
            if case .object = values[name] {
                isSection = true
            } else {
                isSection = values[name] == nil && known(name)
            }
            guard isSection else { return nil }
            let kind = name.contains(".") ? "a section" : "a module"
            return "the template prints {{\(name)}}, \(kind): it renders as JSON with its keys sorted; name one of"
                + " its keys ({{\(name).KEY}}), or enter it: {{#\(name)}}…{{/\(name)}}"
        }
        return reads + template + choices + Self.outside(target, modules: modules) + transforms + structured
    }

    /// The names outside of every section whose module the daemon does not serve, or the target does not read (a
    /// target that reads a module not served is failed, not warned about): `{{netwrok.dns.cache}}`, `{{display}}`,
    /// `is.nosuch.KEY.VALUE`, `revision.MODULE` of a module it does not read. Inside a section a name may be a member
    /// of the section's value, so only the top of the template is checked here.
    static func outside(_ target: ApplyTarget, modules: Set<String>) -> [String] {
        let readModules = Set(target.reads.map(ApplyTarget.module(of:)))
        return target.topLevelNames.compactMap { name -> String? in
            if let key = TemplateNames.choiceKey(name) {
                let module = ApplyTarget.module(of: key)
                guard !modules.contains(module), !readModules.contains(module) else { return nil }
                return
                    "the template names \(name), but the settings daemon serves no module \(module): it is never true"
            }
            if name.hasPrefix("revision.") {
                let module = String(name.dropFirst("revision.".count).prefix { $0 != "." })
                guard !readModules.contains(module) else { return nil }
                return "the template names \(name), but 'reads' names nothing of module \(module): it renders as empty"
            }
            let module = ApplyTarget.module(of: name)
            guard name != "is", name != "revision", !readModules.contains(module) else { return nil }
            if modules.contains(module) {
                // A dotted name in a module served is checked with the others (above).
                return name.contains(".")
                    ? nil : "the template names \(name), a module 'reads' leaves out: it renders as empty"
            }
            return "the template names \(name), but the settings daemon serves no module \(module): it renders as empty"
        }
    }
}

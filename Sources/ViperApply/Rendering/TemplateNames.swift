/// The names a Mustache template looks up, read from its tags (``TemplateTags``): `{{network.dns.cache}}`, the
/// section `{{#network.dns.servers}}`, the argument of a transform `{{#equalzero(power.idle.suspend-after)}}`.
/// Comments, partials, blocks, pragmas and set-delimiter tags name nothing; tags after a set-delimiter tag are read
/// with its delimiters.
enum TemplateNames {
    /// Every name looked up, once each, in order.
    static func scan(_ source: String) -> [String] {
        Self.names(
            of: TemplateTags(scanning: source).tags.filter { tag in
                tag.sigil.map { "#^/{&".contains($0) } ?? true
            }
        )
    }

    /// The names whose value is printed as it is (`{{network.dns}}`, `{{{x}}}`, `{{&x}}`), not entered as a
    /// section nor given to a transform: a list or a section printed so is a mistake to warn about.
    static func printed(_ source: String) -> [String] {
        Self.names(of: TemplateTags(scanning: source).tags.filter { $0.printsValue && !$0.content.contains("(") })
    }

    /// The names looked up outside of every section that enters a value (a section's own name included), once each,
    /// in order: inside `{{#network.proxy}}…`, a name may be a member of its value (`{{host}}`); at the top it can only
    /// be a module, `is.…` or `revision.…`. An inverted section (`{{^…}}`) enters nothing, nor does a section over
    /// a transform (`{{#empty(…)}}`, a Boolean): the names in them are looked up at the top as well.
    static func topLevel(_ source: String) -> [String] {
        var entered: [Bool] = []
        var tags: [TemplateTags.Tag] = []
        for tag in TemplateTags(scanning: source).tags {
            let top = !entered.contains(true)
            switch tag.sigil {
            case "#", "^":
                if top { tags.append(tag) }
                entered.append(tag.sigil == "#" && !tag.content.contains("("))
            case "/":
                _ = entered.popLast()
            case nil, "{", "&":
                if top { tags.append(tag) }
            default:
                break
            }
        }
        return Self.names(of: tags)
    }

    /// The key an `is.KEY.CHOICE` name tests (`network.proxy.mode` for `is.network.proxy.mode.manual`); `nil` for
    /// any other name.
    static func choiceKey(_ name: String) -> String? {
        guard name.hasPrefix("is.") else { return nil }
        let parts = name.dropFirst("is.".count).split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 2 ? parts.dropLast().joined(separator: ".") : nil
    }

    /// The transforms the tags apply, once each, in order: `equalzero` in `{{#equalzero(power.idle.suspend-after)}}`,
    /// both in `{{#empty(reversed(network.dns.servers))}}`.
    static func transforms(_ source: String) -> [String] {
        var names: [String] = []
        var seen: Set<String> = []
        for tag in TemplateTags(scanning: source).tags where tag.sigil.map({ "#^/{&".contains($0) }) ?? true {
            var rest = Substring(tag.content)
            while let open = rest.firstIndex(of: "(") {
                let name = String(rest[..<open].filter { !$0.isWhitespace })
                if !name.isEmpty, seen.insert(name).inserted { names.append(name) }
                rest = rest[rest.index(after: open)...]
            }
        }
        return names
    }

    private static func names(of tags: [TemplateTags.Tag]) -> [String] {
        var names: [String] = []
        var seen: Set<String> = []
        for tag in tags {
            var name = Substring(tag.content)
            // A transform's argument is what is looked up: equalzero(power.idle.suspend-after).
            while let start = name.firstIndex(of: "("), let end = name.lastIndex(of: ")"), start < end {
                name = name[name.index(after: start)..<end]
            }
            let trimmed = String(name.filter { !$0.isWhitespace })
            guard !trimmed.isEmpty, trimmed != ".", seen.insert(trimmed).inserted else { continue }
            names.append(trimmed)
        }
        return names
    }
}

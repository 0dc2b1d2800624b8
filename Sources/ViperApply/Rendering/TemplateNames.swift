/// The names a Mustache template looks up, read from its source: `{{network.dns.cache}}`, the section
/// `{{#network.dns.servers}}`, the argument of a transform `{{#equalzero(power.idle.suspend-after)}}`. Comments,
/// partials and pragmas name nothing; after a set-delimiter tag the rest is not read (it would be misread).
enum TemplateNames {
    static func scan(_ source: String) -> [String] {
        var names: [String] = []
        var seen: Set<String> = []
        var rest = Substring(source)
        while let open = rest.range(of: "{{") {
            guard let close = rest[open.upperBound...].range(of: "}}") else { break }
            var tag = rest[open.upperBound..<close.lowerBound]
            rest = rest[close.upperBound...]
            if tag.hasPrefix("{") {  // {{{name}}}: the third brace closes after the two
                tag = tag.dropFirst()
                if rest.hasPrefix("}") { rest = rest.dropFirst() }
            }
            tag = tag.drop { $0 == " " || $0 == "\t" }
            guard let sigil = tag.first else { continue }
            switch sigil {
            case "!", ">", "%", "<", "$": continue
            case "=": return names
            case "#", "^", "/", "&": tag = tag.dropFirst()
            default: break
            }
            var name = tag.trimmingCharacters(in: " \t\n")
            // A transform's argument is what is looked up: equalzero(power.idle.suspend-after).
            while let start = name.firstIndex(of: "("), let end = name.lastIndex(of: ")"), start < end {
                name = String(name[name.index(after: start)..<end]).trimmingCharacters(in: " \t")
            }
            guard !name.isEmpty, name != ".", !seen.contains(name) else { continue }
            seen.insert(name)
            names.append(name)
        }
        return names
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String {
        String(self.drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        Substring(self).trimmingCharacters(in: set)
    }
}

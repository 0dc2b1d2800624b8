/// The tags of a Mustache template, read from its source as swift-mustache reads them (which keeps its parsed
/// template to itself): each tag's sigil, what it holds and where it opens, following set-delimiter tags
/// (`{{=<% %>=}}`); and where a tag opens that is never closed.
struct TemplateTags {
    /// One tag: `{{#network.dns.servers}}` has the sigil `#` and the content `network.dns.servers`.
    struct Tag: Equatable {
        /// The character right after the opening delimiter that makes the tag a section (`#`), an inverted section
        /// (`^`), a section's end (`/`), a comment (`!`), a partial (`>`), a parent (`<`), a block (`$`), an
        /// unescaped variable (`{`, `&`), a pragma (`%`) or a set-delimiter tag (`=`); `nil` for a variable.
        var sigil: Character?
        /// What the tag holds after its sigil, without the spaces around it: a name, a name with transforms
        /// (`equalzero(power.idle.suspend-after)`), a comment's text.
        var content: String
        /// The delimiter that opened it (`{{`, or the one a set-delimiter tag chose).
        var opening: String
        /// Where it opens, from 1.
        var line: Int
        var column: Int

        /// Whether it prints a value: a variable, `{{{name}}}` or `{{&name}}`.
        var printsValue: Bool { self.sigil == nil || self.sigil == "{" || self.sigil == "&" }
    }

    /// Where a tag opens that has no closing delimiter after it: the template ends inside it.
    struct Unclosed: Equatable {
        var opening: String
        var closing: String
        var line: Int
        var column: Int
    }

    /// Every tag, in order.
    var tags: [Tag] = []
    /// The tag the template ends in, if any.
    var unclosed: Unclosed?
    /// The size in bytes of the largest section's text (between its opening and closing tags); `nil` without
    /// sections, or when they do not pair up.
    var largestSection: Int?

    static let sigils: Set<Character> = ["#", "^", "/", "!", ">", "<", "$", "{", "&", "%", "="]

    init(scanning source: String) {
        var opening = "{{"
        var closing = "}}"
        var rest = Substring(source)
        var line = 1
        var column = 1
        /// Moves `line` and `column` over `text`.
        func advance(over text: Substring) {
            for character in text {
                if character == "\n" || character == "\r\n" {
                    line += 1
                    column = 1
                } else {
                    column += 1
                }
            }
        }
        // Sections open, innermost last: their names and where their text starts, in bytes of UTF-8.
        var sections: [(name: String, start: Int)] = []
        var paired = true
        while let open = rest.range(of: opening) {
            advance(over: rest[..<open.lowerBound])
            let (tagLine, tagColumn) = (line, column)
            guard let close = rest[open.upperBound...].range(of: closing) else {
                self.unclosed = Unclosed(opening: opening, closing: closing, line: tagLine, column: tagColumn)
                return
            }
            var body = rest[open.upperBound..<close.lowerBound]
            var end = close.upperBound
            var sigil: Character?
            if let first = body.first, Self.sigils.contains(first) {
                sigil = first
                body = body.dropFirst()
                // {{{name}}}: the third brace closes after the delimiter; without it the tag is not closed.
                if first == "{" {
                    guard rest[end...].hasPrefix("}") else {
                        self.unclosed = Unclosed(
                            opening: opening + "{",
                            closing: "}" + closing,
                            line: tagLine,
                            column: tagColumn
                        )
                        return
                    }
                    end = rest.index(after: end)
                }
            }
            advance(over: rest[open.lowerBound..<end])
            rest = rest[end...]
            let content = String(body).trimmed
            self.tags.append(Tag(sigil: sigil, content: content, opening: opening, line: tagLine, column: tagColumn))
            if sigil == "#" || sigil == "^" {
                sections.append((content, source.utf8.distance(from: source.startIndex, to: end)))
            } else if sigil == "/" {
                if let last = sections.popLast(), last.name == content {
                    let size = source.utf8.distance(from: source.startIndex, to: open.lowerBound) - last.start
                    self.largestSection = max(self.largestSection ?? 0, size)
                } else {
                    paired = false
                }
            }
            if sigil == "=" {
                // {{=<% %>=}}: the delimiters from here on.
                let words = content.dropLast(content.hasSuffix("=") ? 1 : 0).split(whereSeparator: \.isWhitespace)
                guard words.count == 2 else { return }  // malformed: swift-mustache refuses the template
                opening = String(words[0])
                closing = String(words[1])
            }
        }
        // Sections that do not pair up (a block's `{{/name}}`, a mistake the parser refuses): no size to go by.
        if !paired || !sections.isEmpty { self.largestSection = nil }
    }
}

extension String {
    /// The text without the spaces, tabs and line breaks around it.
    fileprivate var trimmed: String {
        String(self.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}

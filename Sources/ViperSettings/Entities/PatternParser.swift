/// Reads a schema's `pattern` into a ``PatternNode`` tree, refusing what ``PatternProgram`` cannot match in linear
/// time (backreferences, lookbehinds, atomic groups, possessive quantifiers, inline flags) with a ``PatternError``
/// naming the construct and its position.
///
/// The syntax taken: literals; `.`; `\d \D \w \W \s \S` (ASCII classes); `\n \t \r \uXXXX \u{X…}` and any
/// punctuation escaped (`\.`, `\[`, `\-`…); classes `[…]` and `[^…]` with ranges and escapes; groups `(…)` and
/// `(?:…)`; lookaheads `(?=…)` and `(?!…)`; alternation `|`; quantifiers `* + ? {n} {n,} {n,m}`, greedy or lazy
/// (`*?`: the same for a whole match); anchors `^` and `$`.
struct PatternParser {
    private let scalars: [Unicode.Scalar]
    private var offset = 0
    private var depth = 0
    private var lookaheads = 0

    /// The deepest nesting of groups taken, so that reading and compiling never run out of stack.
    static let maxDepth = 100
    /// The largest count a quantifier `{n,m}` takes.
    static let maxCount = 1000

    /// Parses `source` whole.
    static func parse(_ source: String) throws(PatternError) -> PatternNode {
        var parser = PatternParser(scalars: Array(source.unicodeScalars))
        let node = try parser.alternatives()
        if parser.offset < parser.scalars.count {
            // Only an unmatched ')' stops the top-level alternatives before the end.
            throw .invalid("a ')' without its '('", at: parser.offset)
        }
        return node
    }

    private init(scalars: [Unicode.Scalar]) { self.scalars = scalars }

    private var current: Unicode.Scalar? { self.offset < self.scalars.count ? self.scalars[self.offset] : nil }

    private func peek(_ ahead: Int) -> Unicode.Scalar? {
        self.offset + ahead < self.scalars.count ? self.scalars[self.offset + ahead] : nil
    }

    /// `a|b|…`, up to the end or a `)`.
    private mutating func alternatives() throws(PatternError) -> PatternNode {
        var branches = [try self.sequence()]
        while self.current == "|" {
            self.offset += 1
            branches.append(try self.sequence())
        }
        return branches.count == 1 ? branches[0] : .alternatives(branches)
    }

    /// Atoms with their quantifiers, up to `|`, `)` or the end.
    private mutating func sequence() throws(PatternError) -> PatternNode {
        var nodes: [PatternNode] = []
        while let scalar = self.current, scalar != "|", scalar != ")" {
            var node = try self.atom()
            if let (min, max) = try self.quantifier() {
                node = .repeated(node, min: min, max: max)
                if self.quantifierStarts() { throw .invalid("a quantifier right after another", at: self.offset) }
            }
            nodes.append(node)
        }
        return nodes.count == 1 ? nodes[0] : nodes.isEmpty ? .empty : .sequence(nodes)
    }

    /// Whether a quantifier starts here: `*`, `+`, `?`, or a `{` that reads as `{n}`, `{n,}` or `{n,m}`.
    private func quantifierStarts() -> Bool {
        guard let scalar = self.current else { return false }
        if scalar != "{" { return "*+?".unicodeScalars.contains(scalar) }
        var ahead = 1
        func digits() -> Int {
            let first = ahead
            while let next = self.peek(ahead), ("0"..."9").contains(next) { ahead += 1 }
            return ahead - first
        }
        guard digits() > 0 else { return false }
        if self.peek(ahead) == "," {
            ahead += 1
            _ = digits()
        }
        return self.peek(ahead) == "}"
    }

    /// A quantifier and its lazy `?` if one follows; a possessive `+` is refused.
    private mutating func quantifier() throws(PatternError) -> (Int, Int?)? {
        guard self.quantifierStarts(), let scalar = self.current else { return nil }
        let start = self.offset
        self.offset += 1
        let bounds: (Int, Int?)
        switch scalar {
        case "*": bounds = (0, nil)
        case "+": bounds = (1, nil)
        case "?": bounds = (0, 1)
        default:
            let low = try self.count(quantifierAt: start)
            var high: Int? = low
            if self.current == "," {
                self.offset += 1
                high = self.current == "}" ? nil : try self.count(quantifierAt: start)
            }
            self.offset += 1  // '}'
            if let high, high < low {
                throw .invalid("a quantifier {\(low),\(high)} whose maximum is below its minimum", at: start)
            }
            bounds = (low, high)
        }
        if self.current == "?" {
            self.offset += 1
        } else if self.current == "+" {
            throw .unsupported("a possessive quantifier (\(scalar)+)", at: start)
        }
        return bounds
    }

    /// The digits of a `{n,m}` count.
    private mutating func count(quantifierAt start: Int) throws(PatternError) -> Int {
        var value = 0
        while let digit = self.current, ("0"..."9").contains(digit) {
            value = min(value * 10 + Int(digit.value - 48), Self.maxCount + 1)
            self.offset += 1
        }
        if value > Self.maxCount {
            throw .invalid("a quantifier count above \(Self.maxCount)", at: start)
        }
        return value
    }

    /// One atom: a group, a class, `.`, an anchor, an escape or a literal.
    private mutating func atom() throws(PatternError) -> PatternNode {
        let start = self.offset
        let scalar = self.scalars[start]
        self.offset += 1
        switch scalar {
        case "(": return try self.group(at: start)
        case "[": return try PatternClassParser.parse(self.scalars, from: &self.offset)
        case ".": return .scalars(.any)
        case "^": return .start
        case "$": return .end
        case "\\":
            return .scalars(try PatternClassParser.escape(self.scalars, from: &self.offset, inClass: false))
        case "*", "+", "?":
            throw .invalid("a quantifier (\(scalar)) with nothing to repeat", at: start)
        case "{":
            self.offset = start
            if self.quantifierStarts() { throw .invalid("a quantifier ({) with nothing to repeat", at: start) }
            throw .invalid("a '{' that starts no quantifier {n}, {n,} or {n,m}; write \\{ for the character", at: start)
        default: return .scalars(.scalar(scalar.value))
        }
    }

    /// The group whose `(` is at `start`: `(…)`, `(?:…)`, `(?=…)` or `(?!…)`; other `(?` forms are refused.
    private mutating func group(at start: Int) throws(PatternError) -> PatternNode {
        var lookahead: Bool?
        if self.current == "?" {
            switch self.peek(1) {
            case ":": self.offset += 2
            case "=": lookahead = false
            case "!": lookahead = true
            case "<" where self.peek(2) == "=" || self.peek(2) == "!":
                throw .unsupported("a lookbehind (?<\(self.peek(2)!)", at: start)
            case "<", "P", "'": throw .unsupported("a named group", at: start)
            case ">": throw .unsupported("an atomic group (?>", at: start)
            case "#": throw .unsupported("a comment group (?#", at: start)
            case "|": throw .unsupported("a branch reset group (?|", at: start)
            default:
                throw .unsupported(
                    "a group or inline option starting (?\(self.peek(1).map(String.init) ?? "")",
                    at: start
                )
            }
            if lookahead != nil { self.offset += 2 }
        }
        self.depth += 1
        if self.depth > Self.maxDepth {
            throw .invalid("groups nested more than \(Self.maxDepth) deep", at: start)
        }
        let body = try self.alternatives()
        self.depth -= 1
        guard self.current == ")" else { throw .invalid("a '(' without its ')'", at: start) }
        self.offset += 1
        guard let negated = lookahead else { return body }
        self.lookaheads += 1
        return .lookahead(body, negated: negated, id: self.lookaheads - 1)
    }
}

/// Reads the character classes (`[a-z]`, `[^\]]`) and escapes (`\d`, `\.`, `\u{e9}`) of a schema pattern for
/// ``PatternParser``; `\d`, `\w` and `\s` are ASCII classes.
enum PatternClassParser {
    /// The class whose `[` is just before `offset`, up to its `]`; `offset` ends after the `]`.
    static func parse(_ scalars: [Unicode.Scalar], from offset: inout Int) throws(PatternError) -> PatternNode {
        let start = offset - 1
        var negated = false
        if offset < scalars.count && scalars[offset] == "^" {
            negated = true
            offset += 1
        }
        var ranges: [ClosedRange<UInt32>] = []
        var empty = true
        while true {
            guard offset < scalars.count else { throw .invalid("a '[' without its ']'", at: start) }
            let scalar = scalars[offset]
            if scalar == "]" {
                if empty { throw .invalid("an empty class [] (write \\] for the character)", at: start) }
                offset += 1
                break
            }
            empty = false
            if scalar == "[" {
                throw .unsupported(
                    "a '[' inside a class (a nested or POSIX class); write \\[ for the character,",
                    at: offset
                )
            }
            if (scalar == "&" || scalar == "~") && offset + 1 < scalars.count && scalars[offset + 1] == scalar {
                throw .unsupported("a class operation (\(scalar)\(scalar))", at: offset)
            }
            let itemStart = offset
            let item = try self.item(scalars, from: &offset)
            guard let low = item.single, offset + 1 < scalars.count, scalars[offset] == "-", scalars[offset + 1] != "]"
            else {
                ranges += item.ranges
                continue
            }
            offset += 1
            let highStart = offset
            guard let high = try self.item(scalars, from: &offset).single else {
                throw .invalid("a range that ends with a class", at: highStart)
            }
            guard low <= high else {
                throw .invalid("a range whose end comes before its start", at: itemStart)
            }
            ranges.append(low...high)
        }
        let set = ScalarSet(ranges)
        return .scalars(negated ? set.inverted : set)
    }

    /// One scalar, or an escape, inside a class.
    private static func item(_ scalars: [Unicode.Scalar], from offset: inout Int) throws(PatternError) -> ScalarSet {
        let scalar = scalars[offset]
        offset += 1
        if scalar == "\\" { return try self.escape(scalars, from: &offset, inClass: true) }
        return .scalar(scalar.value)
    }

    /// The escape whose `\` is just before `offset`; `offset` ends after it.
    static func escape(
        _ scalars: [Unicode.Scalar],
        from offset: inout Int,
        inClass: Bool
    ) throws(PatternError) -> ScalarSet {
        let start = offset - 1
        guard offset < scalars.count else { throw .invalid("a '\\' at the end of the pattern", at: start) }
        let scalar = scalars[offset]
        offset += 1
        switch scalar {
        case "d": return .digit
        case "D": return ScalarSet.digit.inverted
        case "w": return .word
        case "W": return ScalarSet.word.inverted
        case "s": return .space
        case "S": return ScalarSet.space.inverted
        case "n": return .scalar(0x0A)
        case "t": return .scalar(0x09)
        case "r": return .scalar(0x0D)
        case "u": return .scalar(try self.codePoint(scalars, from: &offset, escapeAt: start))
        case "1"..."9": throw .unsupported("a backreference (\\\(scalar))", at: start)
        case "b" where !inClass, "B": throw .unsupported("a word boundary (\\\(scalar))", at: start)
        case "A", "z", "Z", "G": throw .unsupported("the anchor \\\(scalar) (use ^ or $)", at: start)
        case "p", "P": throw .unsupported("a Unicode property (\\\(scalar))", at: start)
        case "k", "g": throw .unsupported("a named or numbered backreference (\\\(scalar))", at: start)
        case "Q", "E": throw .unsupported("quoting (\\Q…\\E)", at: start)
        default:
            guard scalar.isASCII, !("a"..."z").contains(scalar), !("A"..."Z").contains(scalar),
                !("0"..."9").contains(scalar), scalar.value >= 0x20
            else {
                throw .unsupported("the escape \\\(scalar)", at: start)
            }
            return .scalar(scalar.value)
        }
    }

    /// The code point of `\uXXXX` or `\u{X…}` (1 to 6 hexadecimal digits).
    private static func codePoint(
        _ scalars: [Unicode.Scalar],
        from offset: inout Int,
        escapeAt start: Int
    ) throws(PatternError) -> UInt32 {
        let braced = offset < scalars.count && scalars[offset] == "{"
        if braced { offset += 1 }
        var digits = ""
        while offset < scalars.count, scalars[offset].properties.isASCIIHexDigit, digits.count < (braced ? 6 : 4) {
            digits.unicodeScalars.append(scalars[offset])
            offset += 1
        }
        if braced {
            guard offset < scalars.count, scalars[offset] == "}" else {
                throw .invalid("a \\u{…} escape that is not 1 to 6 hexadecimal digits in braces", at: start)
            }
            offset += 1
        }
        guard !digits.isEmpty, braced || digits.count == 4, let value = UInt32(digits, radix: 16),
            Unicode.Scalar(value) != nil
        else {
            throw .invalid("a \\u escape that is not a Unicode scalar (\\uXXXX or \\u{X…})", at: start)
        }
        return value
    }
}

/// Text a peer sent, made safe to repeat in a message or a log line: quoted and escaped as a JSON string would be,
/// control characters included (C0, DEL, C1, the line and paragraph separators), so that a newline or a terminal
/// escape in it cannot start a forged line, and cut to a bounded length.
package enum QuotedText {
    /// The longest text, in characters, repeated whole.
    package static let limit = 100

    /// `text` as a string literal; past `limit` characters, its first `limit` followed by `…` and its size.
    package static func quote(_ text: String, limit: Int = QuotedText.limit) -> String {
        var quoted = "\""
        var count = 0
        for character in text {
            if count == limit {
                quoted += "\"… (\(text.utf8.count) bytes)"
                return quoted
            }
            count += 1
            for scalar in character.unicodeScalars {
                switch scalar.value {
                case 0x22: quoted += "\\\""
                case 0x5C: quoted += "\\\\"
                case 0x0A: quoted += "\\n"
                case 0x09: quoted += "\\t"
                case 0x0D: quoted += "\\r"
                default:
                    if let escaped = Self.escaped(scalar) {
                        quoted += escaped
                    } else {
                        quoted.unicodeScalars.append(scalar)
                    }
                }
            }
        }
        return quoted + "\""
    }

    /// `\uXXXX` for a control character (C0, DEL, C1, the line and paragraph separators), which a terminal would
    /// act on; `nil` for any other character.
    package static func escaped(_ scalar: Unicode.Scalar) -> String? {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029:
            let hex = String(scalar.value, radix: 16)
            return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default:
            return nil
        }
    }

    /// A message of a command-line parser, which repeats arguments as they were given, made safe to print on a
    /// terminal: each argument that holds a control or reordering character is replaced by its escaped form (a
    /// newline in it included), then every such character left is escaped but the message's own line breaks.
    package static func escapingArguments(in message: String, arguments: [String]) -> String {
        var text = message
        for argument in Set(arguments) where argument.unicodeScalars.contains(where: Self.needsEscape) {
            text = text.replacing(argument, with: Self.escapingScalars(argument, keepingNewlines: false))
        }
        guard text.unicodeScalars.contains(where: { $0 != "\n" && Self.needsEscape($0) }) else { return text }
        return Self.escapingScalars(text, keepingNewlines: true)
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        Self.escaped(scalar) != nil || Self.isInvisible(scalar)
    }

    private static func escapingScalars(_ text: String, keepingNewlines: Bool) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if (scalar == "\n" && keepingNewlines) || !Self.needsEscape(scalar) {
                result.unicodeScalars.append(scalar)
            } else {
                result += "\\u{\(String(scalar.value, radix: 16))}"
            }
        }
        return result
    }

    /// Whether `scalar` is invisible but reorders or hides the text around it: the bidirectional marks, embeddings,
    /// overrides and isolates (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and the byte order mark (U+FEFF), with
    /// which `a -> b` could read as `b -> a` on a terminal.
    package static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0xFEFF: true
        default: false
        }
    }
}

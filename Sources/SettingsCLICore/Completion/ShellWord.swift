/// A word as typed at a shell prompt up to the cursor, read as bash and zsh read it: what text it stands for, and
/// whether it ends inside a quote that is still open (`'it` is the text `it`, in an open single quote).
///
/// Quotes are removed (`'it'\''s` is `it's`); a backslash escapes the character after it (`a\ b` is `a b`),
/// within double quotes only before `$`, `` ` ``, `"` and `\`; within single quotes nothing is special.
package struct ShellWord: Sendable, Hashable {
    /// The text the word stands for so far, as if its open quote were closed.
    package var text: String
    /// The quote (`'` or `"`) the word ends in, still open; `nil` when every quote is closed.
    package var openQuote: Character?
    /// The text of the part before ``openQuote``: what bash does not replace when it completes inside the quote.
    package var textBeforeOpenQuote: String

    /// The word `typed`, quotes and escapes included.
    package init(typed: String) {
        var text = ""
        var quote: Character?
        var beforeQuote = ""
        var escaping = false
        for character in typed {
            if escaping {
                if quote == "\"" && !["$", "`", "\"", "\\", "\n"].contains(character) { text.append("\\") }
                if character != "\n" { text.append(character) }
                escaping = false
            } else if character == "\\" && quote != "'" {
                escaping = true
            } else if let open = quote, character == open {
                quote = nil
            } else if quote == nil && (character == "'" || character == "\"") {
                quote = character
                beforeQuote = text
            } else {
                text.append(character)
            }
        }
        self.text = text
        self.openQuote = quote
        self.textBeforeOpenQuote = quote == nil ? text : beforeQuote
    }
}

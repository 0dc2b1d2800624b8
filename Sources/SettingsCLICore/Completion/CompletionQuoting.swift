import SettingsAPI

/// How the candidates settingsctl prints for a shell's completion script, one per line, are written so that each
/// reaches the command line as the literal text it is: a schema's choice such as `$(touch /tmp/x)` or `it's` is
/// text to insert, never a command to run, a parameter to expand or quotes to remove.
///
/// - bash: settingsctl's script (``BashCompletionScript`` in settingsctl-full) adds the lines to `COMPREPLY` as
///   they are and readline inserts them as they are, so each is the word quoted for the command line: every
///   character but letters, digits and `_-.,/+@%` after a backslash (`it\'s`, `a\ b`, `\$\(touch\ /tmp/x\)`). In a
///   word that ends in an open quote (`'it`, `"x`), readline replaces the text from that quote on with a candidate
///   that begins with it, then adds the closing quote unless the candidate ends with one: so the candidate is the
///   rest of the word quoted within that quote (``quoted(_:within:)``: `'it'\''s`, `"x, y`). A script generated before
///   settingsctl quoted them hands the lines to `compgen -W`, which expands each once: that gives the same text, and
///   runs nothing, as every character the shell would act on is escaped.
/// - zsh: the script hands the lines to `_describe`, which reads `WORD:DESCRIPTION` and takes `\` as an escape, so
///   `\` and `:` are escaped with a backslash; zsh quotes the word it inserts.
/// - fish: the lines are used as they are; fish quotes the word it inserts.
///
/// A candidate with a control character (a line break, a tab, which starts a fish description, an escape sequence)
/// cannot be written on one line, nor listed on a terminal safely, and nobody types it: it is left out.
package enum CompletionQuoting: String, Sendable, Hashable, CaseIterable {
    case bash
    case zsh
    case fish

    /// The quoting for the shell that asks, by the name the completion scripts give it (`bash`, `zsh`, `fish`);
    /// `nil` for none or another, whose candidates are printed as they are (less those with control characters).
    package init?(shell: String?) {
        guard let shell, let quoting = Self(rawValue: shell) else { return nil }
        self = quoting
    }

    /// `candidates` as this shell's script must read them, to complete the word `typed` (up to the cursor, quotes
    /// and escapes included), those with control characters left out. Each candidate begins with the text of
    /// `typed`.
    package func quoted(_ candidates: [String], typed: ShellWord) -> [String] {
        Self.printable(candidates).map { self.quoted($0, typed: typed) }
    }

    /// `candidate` as this shell's script must read it, to complete the word `typed`.
    package func quoted(_ candidate: String, typed: ShellWord) -> String {
        switch self {
        case .bash:
            // Within an open quote, readline replaces the word from the quote on, as the candidate begins with it.
            guard let quote = typed.openQuote, candidate.hasPrefix(typed.textBeforeOpenQuote) else {
                return Self.backslashQuoted(candidate)
            }
            return Self.quoted(String(candidate.dropFirst(typed.textBeforeOpenQuote.count)), within: quote)
        case .zsh:
            var escaped = ""
            for character in candidate {
                if character == "\\" || character == ":" { escaped += "\\" }
                escaped.append(character)
            }
            return escaped
        case .fish:
            return candidate
        }
    }

    /// `text` as one word for bash's command line: each character but letters, digits, `_-.,/+@%` and those
    /// outside ASCII after a backslash; `''` for the empty text.
    package static func backslashQuoted(_ text: String) -> String {
        guard !text.isEmpty else { return "''" }
        var quoted = ""
        for character in text {
            let plain =
                character.unicodeScalars.first.map { $0.value > 0x7F } == true
                || (character.isASCII && (character.isLetter || character.isNumber))
                || "_-.,/+@%".contains(character)
            if !plain { quoted += "\\" }
            quoted.append(character)
        }
        return quoted
    }

    /// `text` as the rest of a bash word from its open `quote` (`'` or `"`) on, that quote first, as readline inserts
    /// it in place of what was typed from the quote on. Within single quotes a `'` closes the quote, is escaped and
    /// reopens it (`'it'\''s`); within double quotes `"`, `\`, `$` and `` ` `` are escaped with a backslash, and `!`,
    /// which history expansion acts on there (a backslash before it would stay), is written as `\!` between a
    /// closing and a reopening quote (`"a"\!"b`). The result ends inside the quote, for readline to close it, unless
    /// its last character is the quote character: readline then adds nothing, so the result closes the quote itself
    /// (`'it'\'''`, `"say \"hi\""`, `''` for the empty text).
    package static func quoted(_ text: String, within quote: Character) -> String {
        var quoted = String(quote)
        for character in text {
            switch (quote, character) {
            case ("'", "'"): quoted += #"'\''"#
            case ("\"", "!"): quoted += #""\!""#
            case ("\"", "\""), ("\"", "\\"), ("\"", "$"), ("\"", "`"): quoted += "\\" + String(character)
            default: quoted.append(character)
            }
        }
        if quoted.last == quote { quoted.append(quote) }
        return quoted
    }

    /// `candidates` without those that hold a control character (C0, DEL, C1, the line and paragraph separators).
    package static func printable(_ candidates: [String]) -> [String] {
        candidates.filter { candidate in !candidate.unicodeScalars.contains { QuotedText.escaped($0) != nil } }
    }
}

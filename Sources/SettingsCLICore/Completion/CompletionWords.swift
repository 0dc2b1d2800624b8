/// Reads the command line a shell hands to completion: the words as typed so far, the program's name first.
///
/// The words are as the shell split them, quotes and escapes included; completion reads only `--socket PATH`
/// (or `--socket=PATH`) and the positional words, so that it asks the daemon the user is about to ask.
package enum CompletionWords {
    /// The path given with `--socket` before the word being completed, if any.
    package static func socket(in words: [String]) -> String? {
        var found: String?
        var index = 1
        while index < words.count {
            let word = words[index]
            index += 1
            if word == "--" { break }
            if word == "--socket", index < words.count {
                found = words[index]
                index += 1
            } else if word.hasPrefix("--socket=") {
                found = String(word.dropFirst("--socket=".count))
            }
        }
        guard let path = found, !path.isEmpty else { return nil }
        return Self.unquoted(path)
    }

    /// The positional words before `index`, the command's name first: `set`, then its key.
    package static func positionals(in words: [String], before index: Int) -> [String] {
        var positionals: [String] = []
        var position = 1
        var terminated = false
        while position < min(index, words.count) {
            let word = words[position]
            position += 1
            if terminated || !word.hasPrefix("-") || FastPathParser.isNegativeNumber(word) {
                positionals.append(Self.unquoted(word))
            } else if word == "--" {
                terminated = true
            } else if word == "--socket" {
                position += 1
            }
        }
        return positionals
    }

    /// `word` without the quotes around it, when it is all one quoted string (`'a b'`, `"a b"`).
    private static func unquoted(_ word: String) -> String {
        guard word.count >= 2, let first = word.first, first == "'" || first == "\"", word.last == first else {
            return word
        }
        return String(word.dropFirst().dropLast())
    }
}

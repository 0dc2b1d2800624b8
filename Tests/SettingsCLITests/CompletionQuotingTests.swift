import ArgumentParser
import SettingsAPI
import SettingsCLI
import SettingsCLICore
import Testing

@Suite("Completion candidates reach each shell as literal text")
struct CompletionQuotingTests {
    /// Choices that are shell syntax: spaces, a comma, a command substitution, quotes, a colon, a backslash.
    static let odd = ["a b", "x, y", "$(touch /tmp/pwned)", "it's", "`id`", "c:d", "back\\slash", "*", "~", ""]

    /// A `ShowModule` reply for `odd`, whose key `odd.s.c` has the odd choices and a choice with an escape.
    static var oddReply: String {
        let choices = (Self.odd + ["\u{1B}]0;title\u{07}", "two\nlines", "tab\there"]).map {
            JSONValue.string($0).serialized()
        }
        return """
            {"parameters":{"module":"odd","title":"Odd","description":"","revision":1,"sections":[\
            {"id":"s","title":"S","items":[\
            {"key":"odd.s.c","type":"string","limits":{"choices":[\(choices.joined(separator: ","))]}}]}]}}
            """
    }

    @Test("bash gets each choice as a word quoted for its command line, nothing left for the shell to expand")
    func bashWords() {
        let typed = ShellWord(typed: "")
        #expect(
            CompletionQuoting.bash.quoted(Self.odd, typed: typed) == [
                #"a\ b"#, #"x,\ y"#, #"\$\(touch\ /tmp/pwned\)"#, #"it\'s"#, #"\`id\`"#, #"c\:d"#, #"back\\slash"#,
                #"\*"#, #"\~"#, "''",
            ]
        )
        #expect(CompletionQuoting.bash.quoted("network.proxy.mode", typed: typed) == "network.proxy.mode")
        #expect(CompletionQuoting.bash.quoted("héllo", typed: typed) == "héllo")
    }

    @Test("in bash, a word that ends in an open quote gets the rest of the choice quoted within that quote")
    func bashOpenQuote() {
        // readline replaces the word from the open quote on, and closes the quote unless the candidate ends with it.
        #expect(CompletionQuoting.bash.quoted("it's", typed: ShellWord(typed: "'it")) == #"'it'\''s"#)
        #expect(CompletionQuoting.bash.quoted("x, y", typed: ShellWord(typed: "\"x")) == #""x, y"#)
        #expect(CompletionQuoting.bash.quoted("abc d", typed: ShellWord(typed: "ab'c")) == "'c d")
        #expect(CompletionQuoting.quoted(#"$(id) `id` \ "q" ok"#, within: "\"") == #""\$(id) \`id\` \\ \"q\" ok"#)
        #expect(CompletionQuoting.quoted("a!b", within: "\"") == #""a"\!"b"#)
        #expect(CompletionQuoting.quoted("$(id) it's", within: "'") == #"'$(id) it'\''s"#)
        // Ending with the quote character, it closes the quote itself: readline would not.
        #expect(CompletionQuoting.quoted("x'", within: "'") == #"'x'\'''"#)
        #expect(CompletionQuoting.quoted(#"say "hi""#, within: "\"") == #""say \"hi\"""#)
        #expect(CompletionQuoting.quoted("", within: "'") == "''")
        #expect(CompletionQuoting.quoted("", within: "\"") == #""""#)
    }

    @Test("zsh gets ':' and '\\' escaped for _describe, fish each choice as it is")
    func zshAndFish() {
        let typed = ShellWord(typed: "")
        #expect(
            CompletionQuoting.zsh.quoted(["c:d", "back\\slash", "$(id)", "it's"], typed: typed)
                == ["c\\:d", "back\\\\slash", "$(id)", "it's"]
        )
        #expect(CompletionQuoting.fish.quoted(Self.odd, typed: typed) == Self.odd)
    }

    @Test("a choice with a control character is left out for every shell")
    func controlCharacters() {
        let choices = ["ok", "\u{1B}[2J", "two\nlines", "tab\there", "c1\u{9B}x", "line\u{2028}sep"]
        for quoting in CompletionQuoting.allCases {
            #expect(quoting.quoted(choices, typed: ShellWord(typed: "")) == ["ok"], "\(quoting)")
        }
        #expect(CompletionQuoting.printable(choices) == ["ok"])
    }

    @Test("a typed word is read as bash reads it: quotes removed, escapes applied, an open quote noted")
    func shellWords() {
        #expect(ShellWord(typed: "'it'\\''s").text == "it's")
        #expect(ShellWord(typed: "a\\ b").text == "a b")
        #expect(ShellWord(typed: "\"x, \\$y\\z").text == "x, $y\\z")
        let open = ShellWord(typed: "ab'c d")
        #expect(open.text == "abc d")
        #expect(open.openQuote == "'")
        #expect(open.textBeforeOpenQuote == "ab")
        #expect(ShellWord(typed: "'a'b").openQuote == nil)
    }

    @Test("the values of a key are written for the shell that asks, matched with the word as the shell reads it")
    func completeForShell() {
        func values(_ prefix: String, shell: String?) -> [String] {
            let server = FakeVarlinkServer(reply: Self.oddReply)
            defer { _ = server.finish() }
            let words = ["settingsctl", "--socket", server.path, "set", "odd.s.c", prefix]
            return CompletionCandidates.complete(.value, words: words, index: 5, prefix: prefix, shell: shell)
        }
        #expect(values("", shell: "bash") == CompletionQuoting.bash.quoted(Self.odd, typed: ShellWord(typed: "")))
        #expect(values("'it", shell: "bash") == [#"'it'\''s"#])
        #expect(values("\"x", shell: "bash") == [#""x, y"#])
        #expect(values("a\\ ", shell: "bash") == [#"a\ b"#])
        #expect(values("\\$", shell: "bash") == [#"\$\(touch\ /tmp/pwned\)"#])
        #expect(values("c", shell: "zsh") == ["c\\:d"])
        #expect(values("", shell: "fish") == Self.odd)
        #expect(values("", shell: nil) == Self.odd)
    }

    @Test("a choice that begins with '-' is offered only after a --: else the value would be read as an option")
    func dashedChoices() {
        let reply = """
            {"parameters":{"module":"odd","title":"Odd","description":"","revision":1,"sections":[\
            {"id":"s","title":"S","items":[\
            {"key":"odd.s.c","type":"string","limits":{"choices":["-n","--json","ok"]}}]}]}}
            """
        func values(_ words: [String]) -> [String] {
            let server = FakeVarlinkServer(reply: reply)
            defer { _ = server.finish() }
            let line = ["settingsctl", "--socket", server.path] + words
            return CompletionCandidates.complete(.value, words: line, index: line.count - 1, prefix: "", shell: "bash")
        }
        #expect(values(["set", "odd.s.c", ""]) == ["ok"])
        #expect(values(["set", "odd.s.c", "--", ""]) == ["-n", "--json", "ok"])
    }

    @Test("settingsctl's bash script adds its own candidates as they are, never through compgen -W")
    func bashScript() {
        let generated = SettingsCtl.completionScript(for: .bash)
        #expect(generated.contains(#"__settingsctl_add_completions -W "$(__settingsctl_custom_complete "#))
        let script = BashCompletionScript.literal(generated)
        #expect(!script.contains("compgen -W \"$(__settingsctl_custom_complete"))
        #expect(!script.contains(#"__settingsctl_add_completions -W "$(__settingsctl_custom_complete "#))
        #expect(
            script.contains(
                #"__settingsctl_add_literal_completions "$(__settingsctl_custom_complete ---completion set"#
            )
        )
        #expect(script.contains("compopt +o filenames"))
        #expect(script.split(separator: "\n").last { !$0.isEmpty }?.hasPrefix("complete -o filenames -F ") == true)
        // Files are still completed as files.
        #expect(script.contains("__settingsctl_add_completions -f"))
    }
}

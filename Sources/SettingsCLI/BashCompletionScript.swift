import ArgumentParser
import SettingsCLICore

/// settingsctl's bash completion script: swift-argument-parser's, except for the candidates settingsctl prints for
/// its own arguments (modules, keys, values), which are added to `COMPREPLY` as they are.
///
/// swift-argument-parser's script hands them to `compgen -W`, which expands each as the shell expands a word
/// (`$(…)`, backquotes, parameters, globs, quote removal), and it registers the whole completion with
/// `-o filenames`, so readline quotes a candidate as a file name, which leaves a `$` unescaped (and turns the
/// shell's `complete_fullquote` off). A schema's choice is text, not a file name: for those arguments the script
/// turns `filenames` off and takes each line as settingsctl wrote it, already quoted for the command line
/// (``CompletionQuoting/bash``). Files (`load FILE`, `--socket PATH`) are completed as before.
package enum BashCompletionScript {
    /// The call of swift-argument-parser's script that hands the lines of a custom completion to `compgen -W`.
    static func compgenCall(_ commandName: String) -> String {
        "__\(commandName)_add_completions -W \"$(__\(commandName)_custom_complete "
    }

    /// The function that adds the lines as they are, called instead.
    static func literalFunction(_ commandName: String) -> String {
        "__\(commandName)_add_literal_completions"
    }

    /// Whether `arguments` ask for a completion script and the one generated is bash's.
    package static func isRequested(by arguments: [String]) -> Bool {
        CompletionShell.requesting == .bash
            && arguments.prefix { $0 != "--" }.contains {
                $0 == "--generate-completion-script" || $0.hasPrefix("--generate-completion-script=")
            }
    }

    /// `script` (swift-argument-parser's bash script for `commandName`) with every custom completion's lines added
    /// to `COMPREPLY` as they are, `filenames` off; `script` itself when it has no such completion.
    package static func literal(_ script: String, commandName: String = "settingsctl") -> String {
        let call = Self.compgenCall(commandName)
        let function = Self.literalFunction(commandName)
        var lines = script.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var replaced = false
        for (index, line) in lines.enumerated() {
            guard let range = line.firstRange(of: call) else { continue }
            lines[index].replaceSubrange(range, with: "\(function) \"$(__\(commandName)_custom_complete ")
            replaced = true
        }
        guard replaced, let registration = lines.lastIndex(where: { $0.hasPrefix("complete ") }) else { return script }
        lines.insert(
            contentsOf: [
                "# \(commandName) prints the candidates of its own arguments one a line, each quoted for the command",
                "# line: they are added as they are, never expanded (compgen -W would), and inserted as they are.",
                "\(function)() {",
                "    compopt +o filenames 2>/dev/null",
                "    local completion",
                "    while IFS='' read -r completion; do",
                "        [[ -n \"${completion}\" ]] && COMPREPLY+=(\"${completion}\")",
                "    done <<<\"${1}\"",
                "}",
                "",
            ],
            at: registration
        )
        return lines.joined(separator: "\n")
    }
}

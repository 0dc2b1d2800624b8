package import ArgumentParser
package import SettingsCLICore

extension CompletionKind {
    /// Candidates asked of the daemon on TAB (``CompletionCandidates``), written for the shell that asks so that
    /// each reaches its command line as literal text (``CompletionQuoting``): swift-argument-parser's bash script
    /// expands what a custom completion prints (`compgen -W`), and its zsh script reads `:` as the start of a
    /// description.
    package static func daemon(_ target: CompletionCandidates.Target) -> CompletionKind {
        .custom { words, index, prefix in
            CompletionCandidates.complete(
                target,
                words: words,
                index: index,
                prefix: prefix,
                shell: CompletionShell.requesting?.rawValue
            )
        }
    }
}

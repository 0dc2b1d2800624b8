import SettingsAPI

/// What a shell completes a settingsctl argument with, asked of the daemon: module names, keys, and the values
/// a key accepts (its choices, or true and false).
///
/// Completion runs while a user waits at a prompt, so it is quick and silent: every call has a short timeout, and
/// when the daemon is not running, slow, or answers with an error, there are simply no candidates.
/// It reads only what `ListModules` (`modules[].module`) and `ShowModule` (`sections[].items[]`: `key`, `type`,
/// `limits.choices`, or the prose `constraint` of an older daemon) reply.
package struct CompletionCandidates: Sendable {
    /// How long completion waits for the daemon, per call, in seconds.
    package static let timeoutSeconds = 1

    /// What an argument stands for.
    package enum Target: Sendable, Hashable {
        /// A module (`show`).
        case module
        /// A key, MODULE.SECTION.ITEM (`get`, `set`, `explain`).
        case key
        /// A key or a module (`reset`).
        case keyOrModule
        /// A value of the key given before it (`set KEY VALUE`).
        case value
    }

    /// The client the candidates are asked of.
    package var client: VarlinkClient

    /// Candidates asked of the daemon that `client` reaches.
    package init(client: VarlinkClient) {
        self.client = client
    }

    /// Candidates for the daemon that the command line `words` names with `--socket`, else the one the
    /// environment names (`$VIPER_SETTINGS_SOCKET`, …), with a short timeout.
    package init(words: [String], locator: SocketLocator = .live) {
        let location = locator.locate(option: CompletionWords.socket(in: words))
        self.init(client: VarlinkClient(location: location, timeoutSeconds: Self.timeoutSeconds))
    }

    /// The candidates for the word at `index` of `words` (the whole command line, as the shell split it), that
    /// begin with `prefix` (the word up to the cursor, as typed: quotes and escapes included), written for `shell`
    /// (`bash`, `zsh`, `fish`, as ``CompletionQuoting`` says; as they are for any other); none when the daemon
    /// cannot tell.
    ///
    /// Candidates come from schemas and the daemon: each is text for the command line, never shell syntax.
    package static func complete(
        _ target: Target,
        words: [String],
        index: Int,
        prefix: String,
        shell: String? = nil
    ) -> [String] {
        let candidates = CompletionCandidates(words: words)
        let quoting = CompletionQuoting(shell: shell)
        let typed = ShellWord(typed: prefix)
        let found: [String]
        switch target {
        case .module: found = candidates.modules(prefix: typed.text)
        case .key: found = candidates.keys(prefix: typed.text)
        case .keyOrModule: found = candidates.keysOrModules(prefix: typed.text)
        case .value:
            guard let key = CompletionWords.positionals(in: words, before: index).dropFirst().first else { return [] }
            // fish 3 hands the word over unquoted: a value is also compared with it as it is.
            // A value that begins with '-' would be read as an option unless a `--` came before it: offered then only.
            let terminated = words.prefix(index).contains("--")
            found = candidates.values(key: key, prefix: "").filter {
                $0.hasPrefix(typed.text) || (quoting != .bash && quoting != .zsh && $0.hasPrefix(prefix))
            }.filter { terminated || !$0.hasPrefix("-") }
        }
        guard let quoting else { return CompletionQuoting.printable(found) }
        return quoting.quoted(found, typed: typed)
    }

    /// The modules whose names begin with `prefix`.
    package func modules(prefix: String) -> [String] {
        guard let reply = try? self.client.call(.listModules, [:]) else { return [] }
        let names = (reply["modules"]?.arrayValue ?? []).compactMap { $0["module"]?.stringValue }
        return names.filter { $0.hasPrefix(prefix) }
    }

    /// The keys that begin with `prefix`. Without a dot in `prefix`, the keys of the one module it can begin,
    /// or else the modules it can begin, each followed by a dot.
    package func keys(prefix: String) -> [String] {
        guard let dot = prefix.firstIndex(of: ".") else {
            let modules = self.modules(prefix: prefix)
            if modules.count == 1 { return self.keys(module: modules[0], prefix: prefix) }
            return modules.map { $0 + "." }
        }
        return self.keys(module: String(prefix[..<dot]), prefix: prefix)
    }

    /// The keys and modules that begin with `prefix`: the modules, and the keys of the one module `prefix` can
    /// begin or names.
    package func keysOrModules(prefix: String) -> [String] {
        guard let dot = prefix.firstIndex(of: ".") else {
            let modules = self.modules(prefix: prefix)
            if modules.count == 1 { return modules + self.keys(module: modules[0], prefix: prefix) }
            return modules
        }
        return self.keys(module: String(prefix[..<dot]), prefix: prefix)
    }

    /// The values of `key` that begin with `prefix`: `true` and `false` for a bool, the choices of a string
    /// with choices; none for other keys, which have no short list of values.
    package func values(key: String, prefix: String) -> [String] {
        guard let dot = key.firstIndex(of: "."),
            let item = self.items(module: String(key[..<dot])).first(where: {
                $0["key"]?.stringValue == key
            })
        else { return [] }
        let values: [String]
        switch item["type"]?.stringValue {
        case "bool": values = ["true", "false"]
        case "string":
            if let choices = item["limits"]?["choices"]?.arrayValue {
                values = choices.compactMap(\.stringValue)
            } else {
                values = Self.choices(constraint: item["constraint"]?.stringValue) ?? []
            }
        default: values = []
        }
        return values.filter { $0.hasPrefix(prefix) }
    }

    /// The choices in a constraint of the form "one of a, b, c" (what the daemon says of a string with
    /// choices), without what may follow them ("matching …", "at most … characters"); `nil` for any other
    /// constraint.
    package static func choices(constraint: String?) -> [String]? {
        let lead = "one of "
        guard let constraint, constraint.hasPrefix(lead) else { return nil }
        // Split on "," rather than ", ": the Collection separator lives in _StringProcessing, which the fast
        // settingsctl executable (that links this module) does not need.
        let parts = constraint.dropFirst(lead.count).split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.drop { $0 == " " } }
        let choices = parts.prefix { !$0.hasPrefix("matching ") && !$0.hasPrefix("at most ") }.map(String.init)
        return choices.isEmpty ? nil : choices
    }

    /// The keys of `module` that begin with `prefix`.
    private func keys(module: String, prefix: String) -> [String] {
        self.items(module: module).compactMap { $0["key"]?.stringValue }.filter { $0.hasPrefix(prefix) }
    }

    /// The items of `module`, as the daemon sends them; none when it cannot tell.
    private func items(module: String) -> [JSONValue] {
        guard let reply = try? self.client.call(.showModule, ["module": .string(module)]) else { return [] }
        return (reply["sections"]?.arrayValue ?? []).flatMap { $0["items"]?.arrayValue ?? [] }
    }
}

import SettingsAPI

/// What a mistyped module or key most likely meant: `no such key: 'network.proxy.prot'; did you mean
/// 'network.proxy.port'?`, as ArgumentParser suggests a command for `shwo`. Looked up only after the daemon refused
/// a name, with one more call (the modules, or the module's keys).
package enum NameSuggestion {
    /// `failure` with a suggestion in its message when it is a `NoSuchModule` or `NoSuchKey` and a name close to the
    /// one refused exists; else `failure` as it is.
    static func suggesting(_ failure: CLIFailure, client: VarlinkClient) -> CLIFailure {
        guard let name = failure.errorName, let parameters = failure.parameters else { return failure }
        let hint: (text: String?, listing: String?)?
        if name == SettingsErrorViewModel.noSuchModule(module: "").errorName,
            let module = parameters["module"]?.stringValue
        {
            let modules = Self.modules(client)
            let first = String(module.prefix { $0 != "." })
            if module.contains("."), modules.contains(first) {
                // A key or section where a module was expected (`show network.proxy.port`).
                hint = ("'\(TableFormatter.printable(module))' is not a module: its module is \(first)", nil)
            } else {
                hint = Self.closest(to: module, in: modules).map { ("did you mean '\($0)'?", nil) }
            }
        } else if name == SettingsErrorViewModel.noSuchKey(key: "").errorName, let key = parameters["key"]?.stringValue
        {
            hint = Self.keyHint(for: key, client: client)
        } else {
            hint = nil
        }
        guard let hint else { return failure }
        var suggested = failure
        // Before the parenthesis that says where the names are listed (the last: a name may hold one), which names
        // the module when it is known.
        let message = failure.message
        let cut = message.ranges(of: " (").last?.lowerBound ?? message.endIndex
        let listing = hint.listing.map { " (\($0))" } ?? String(message[cut...])
        suggested.message = String(message[..<cut]) + (hint.text.map { "; \($0)" } ?? "") + listing
        return suggested
    }

    /// What `key` most likely meant: a module or section named as a key, or the closest key of the module (of the
    /// closest module when it has none by that name); and where the module's keys are listed.
    private static func keyHint(for key: String, client: VarlinkClient) -> (text: String?, listing: String?)? {
        let modules = Self.modules(client)
        let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
        guard let first = parts.first else { return nil }
        guard let module = modules.contains(first) ? first : Self.closest(to: first, in: modules) else { return nil }
        let listing = "settingsctl show \(module) lists its keys"
        if parts.count == 1, module == first {
            return ("'\(TableFormatter.printable(first))' is a module: a key is MODULE.SECTION.ITEM", listing)
        }
        if parts.count == 1 { return ("did you mean module '\(module)'? a key is MODULE.SECTION.ITEM", listing) }
        let keys = Self.keys(of: module, client: client)
        let asked = parts.count > 1 ? "\(module).\(parts[1])" : module
        if module == first, keys.contains(where: { $0.hasPrefix(asked + ".") }) {
            return ("'\(TableFormatter.printable(key))' is a section: a key is MODULE.SECTION.ITEM", listing)
        }
        // Nothing close: where the module's keys are listed, at least.
        return (Self.closest(to: asked, in: keys).map { "did you mean '\($0)'?" }, listing)
    }

    private static func modules(_ client: VarlinkClient) -> [String] {
        guard let reply = try? client.call(.listModules, [:]),
            let list = try? JSONValueDecoder().decode(ModuleListViewModel.self, from: reply)
        else { return [] }
        return list.modules.map(\.module)
    }

    private static func keys(of module: String, client: VarlinkClient) -> [String] {
        guard let reply = try? client.call(.showModule, ["module": .string(module)]),
            let shown = try? JSONValueDecoder().decode(ModuleViewModel.self, from: reply)
        else { return [] }
        return shown.sections.flatMap(\.items).map(\.key)
    }

    /// The candidate closest to `name` (edit distance, letter case ignored), when it is close enough to be a typo:
    /// at most a third of the name's length, and at most 3 edits; the first in order when several are as close.
    package static func closest(to name: String, in candidates: [String]) -> String? {
        let target = Array(name.lowercased().unicodeScalars)
        guard !target.isEmpty else { return nil }
        let limit = min(3, max(1, target.count / 3))
        var best: (distance: Int, name: String)?
        for candidate in candidates.sorted() where candidate != name {
            let distance = Self.distance(target, Array(candidate.lowercased().unicodeScalars), limit: limit)
            if distance <= limit, distance < (best?.distance ?? .max) { best = (distance, candidate) }
        }
        return best?.name
    }

    /// The edit distance of `a` and `b` (insertions, deletions, substitutions, and swaps of neighbours), or more
    /// than `limit` once it is known to be.
    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], limit: Int) -> Int {
        if abs(a.count - b.count) > limit { return limit + 1 }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            current[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return a.isEmpty ? b.count : previous[b.count]
    }
}

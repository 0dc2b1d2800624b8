import SettingsAPI

/// What a mistyped module or key most likely meant: `no such key: 'network.proxy.prot'; did you mean
/// 'network.proxy.port'?`, as ArgumentParser suggests a command for `shwo`. Looked up only after the daemon refused
/// a name, with one more call (the modules, or the module's keys).
package enum NameSuggestion {
    /// `failure` with a suggestion in its message when it is a `NoSuchModule` or `NoSuchKey` and a name close to the
    /// one refused exists; else `failure` as it is.
    ///
    /// - Parameter asked: the keys and modules the command named, from which the key a `NoSuchModule` was about is
    ///   told (`proxy.port`, a key without its module, is refused as the module `proxy`).
    static func suggesting(_ failure: CLIFailure, asked: [String] = [], client: VarlinkClient) -> CLIFailure {
        guard let name = failure.errorName, let parameters = failure.parameters else { return failure }
        var suggested = failure
        if name == SettingsErrorViewModel.noSuchModule(module: "").errorName,
            let module = parameters["module"]?.stringValue
        {
            // A module whose schema file was rejected: the message says so, and no other name is what was meant.
            guard parameters["schemaFile"]?.stringValue == nil else { return failure }
            let modules = Self.modules(client)
            let first = String(module.prefix { $0 != "." })
            var listing: String?
            var hint =
                module.contains(".") && modules.contains(first)
                // A key or section where a module was expected (`show network.proxy.port`).
                ? "'\(TableFormatter.printable(module))' is not a module: its module is \(first)"
                : nil
            // A key without its module (`get proxy.port`): the key of a module with that section and item.
            if hint == nil, !module.contains("."), let key = asked.first(where: { $0.hasPrefix(module + ".") }) {
                let keys = modules.flatMap { Self.keys(of: $0, client: client) }
                if let full = Self.key(missingItsModule: key, in: keys) {
                    hint = "did you mean '\(TableFormatter.printable(full))'?"
                    listing = "settingsctl show \(full.prefix { $0 != "." }) lists its keys"
                }
            }
            hint = hint ?? ClosestName.closest(to: module, in: modules).map { "did you mean '\($0)'?" }
            guard let hint else { return failure }
            suggested.message = CLIFailure.noSuch("module", module, hint: hint, listing: listing)
        } else if name == SettingsErrorViewModel.noSuchKey(key: "").errorName, let key = parameters["key"]?.stringValue
        {
            guard let (hint, listing) = Self.keyHint(for: key, client: client) else { return failure }
            suggested.message = CLIFailure.noSuch("key", key, hint: hint, listing: listing)
        }
        return suggested
    }

    /// What `key` most likely meant: a module or section named as a key, or the closest key of the module (of the
    /// closest module when it has none by that name); and where the module's keys are listed.
    private static func keyHint(for key: String, client: VarlinkClient) -> (text: String?, listing: String)? {
        let modules = Self.modules(client)
        let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
        guard let first = parts.first else { return nil }
        guard let module = modules.contains(first) ? first : ClosestName.closest(to: first, in: modules) else {
            // An item or a section alone (`get port`, `get proxy`), as gsettings users may write: the key of a
            // module with that item, or the module with that section.
            guard parts.count == 1 else { return nil }
            let keys = modules.flatMap { Self.keys(of: $0, client: client) }
            if let full = Self.key(ofItem: first, in: keys) {
                return (
                    "did you mean '\(TableFormatter.printable(full))'?",
                    "settingsctl show \(full.prefix { $0 != "." }) lists its keys"
                )
            }
            if let section = keys.first(where: { $0.split(separator: ".").dropFirst().first.map(String.init) == first })
            {
                let owner = String(section.prefix { $0 != "." })
                return (
                    "'\(TableFormatter.printable(first))' is a section of module \(owner): a key is MODULE.SECTION.ITEM",
                    "settingsctl show \(owner) lists its keys"
                )
            }
            return nil
        }
        let listing = "settingsctl show \(module) lists its keys"
        if parts.count == 1, module == first {
            return ("'\(TableFormatter.printable(first))' is a module: a key is MODULE.SECTION.ITEM", listing)
        }
        if parts.count == 1 { return ("did you mean module '\(module)'? a key is MODULE.SECTION.ITEM", listing) }
        let keys = Self.keys(of: module, client: client)
        let asked = "\(module).\(parts[1])"
        if module == first, keys.contains(where: { $0.hasPrefix(asked + ".") }) {
            return ("'\(TableFormatter.printable(key))' is a section: a key is MODULE.SECTION.ITEM", listing)
        }
        if let closest = ClosestName.closest(to: asked, in: keys) { return ("did you mean '\(closest)'?", listing) }
        // The module and the item without its section (`network.servers`).
        if module == first, !parts[1].contains("."), let full = Self.key(ofItem: parts[1], in: keys) {
            return ("did you mean '\(TableFormatter.printable(full))'?", listing)
        }
        // Nothing close: where the module's keys are listed, at least.
        return (nil, listing)
    }

    /// The first of `keys`, in order of names, whose item (its last part) is `item`, letter case ignored.
    package static func key(ofItem item: String, in keys: [String]) -> String? {
        let wanted = item.lowercased()
        return keys.sorted().first { $0.split(separator: ".").last.map { $0.lowercased() } == wanted }
    }

    /// The key that `key`, given without its module (`proxy.port`), most likely meant: the one of `keys` that is
    /// `key` after its module (`network.proxy.port`), else the closest one so (`proxy.prot`), by
    /// ``ClosestName``; the first module's in order of names when several modules have it.
    package static func key(missingItsModule key: String, in keys: [String]) -> String? {
        var full: [String: String] = [:]
        for candidate in keys.sorted() {
            guard let dot = candidate.firstIndex(of: ".") else { continue }
            let rest = String(candidate[candidate.index(after: dot)...])
            if full[rest] == nil { full[rest] = candidate }
        }
        if let exact = full[key] { return exact }
        return ClosestName.closest(to: key, in: Array(full.keys)).flatMap { full[$0] }
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
}

import SettingsAPI

/// What a settingsctl command does, without ArgumentParser: the call to make and how to render its reply.
///
/// Each ``SettingsCommand`` runs through its action, and ``FastPathParser`` runs actions directly, so that the
/// common command lines never build ArgumentParser's property wrappers (their generic metadata and name sets
/// cost more than the rest of `settingsctl get`, measured with callgrind).
package enum CommandAction: Sendable, Hashable {
    case modules
    /// A module's sections and items; every module's, one after another, when `module` is `nil`.
    case show(module: String?)
    case get(key: String)
    case set(key: String, value: String)
    case reset(target: String)
    case explain(key: String)
    case status
    case sync
    /// The local values of `modules` (every module when empty) as a dump file; with `effective` every value too.
    case dump(modules: [String], effective: Bool)
    /// Loads the dump file at `file` (`-`: standard input).
    case load(file: String, dryRun: Bool, replace: Bool, ifRevision: [String: Int64])
    /// What differs in `module` from its defaults, or with `file` what loading its values from it would change.
    case diff(module: String, file: String?, replace: Bool)

    /// Calls the daemon through `client` and returns what to print: the reply as JSON when `json`, else text. A
    /// module or key the daemon does not have is failed with the closest one it has (``NameSuggestion``).
    package func output(using client: VarlinkClient, style: TextStyle, json: Bool) throws(CLIFailure) -> String {
        do {
            return try self.run(using: client, style: style, json: json)
        } catch {
            throw NameSuggestion.suggesting(error, asked: self.names, client: client)
        }
    }

    /// The keys and modules the command names on its command line, for ``NameSuggestion``.
    var names: [String] {
        switch self {
        case .show(let module?): [module]
        case .get(let key), .set(let key, _), .reset(let key), .explain(let key): [key]
        case .dump(let modules, _): modules
        case .diff(let module, _, _): [module]
        case .modules, .show(nil), .status, .sync, .load: []
        }
    }

    private func run(using client: VarlinkClient, style: TextStyle, json: Bool) throws(CLIFailure) -> String {
        switch self {
        case .modules:
            let model = try Self.request(client, .listModules, [:], as: ModuleListViewModel.self)
            return try Self.present(json, model) { ModuleListRenderer.render(model, style: style) }
        case .show(let module?):
            let parameters: JSONValue = ["module": .string(module)]
            let model = try Self.request(client, .showModule, parameters, as: ModuleViewModel.self)
            return try Self.present(json, model) { ModuleRenderer.render(model, style: style) }
        case .show(nil):
            let list = try Self.request(client, .listModules, [:], as: ModuleListViewModel.self)
            var shown = ModulesShown(modules: [])
            for summary in list.modules {
                let parameters: JSONValue = ["module": .string(summary.module)]
                do {
                    shown.modules.append(try Self.request(client, .showModule, parameters, as: ModuleViewModel.self))
                } catch  where error.errorName == SettingsErrorViewModel.noSuchModule(module: summary.module).errorName
                {
                    continue  // a reload removed it since the list: it is not served any more
                }
            }
            return try Self.present(json, shown) { ModuleRenderer.render(shown.modules, style: style) }
        case .get(let key):
            // Not a literal, for the same reason as the call's envelope (VarlinkClient.call).
            var parameters: [String: JSONValue] = [:]
            parameters["key"] = .string(key)
            let reply = try client.call(.get, .object(parameters))
            // The hot path of shell loops: the text is the item's display alone, read without the generic decoder
            // (its metadata costs a third of a `get`, measured with callgrind); any other reply is decoded in full.
            if !json, let item = reply["item"] {
                // A string prints as it is (an empty one as an empty line); other types as their display. On a
                // terminal, control characters are escaped (ValueRenderer).
                if item["type"]?.stringValue == "string", let text = item["value"]?.stringValue {
                    return ValueRenderer.shown(text, style: style)
                }
                if let display = item["display"]?.stringValue { return ValueRenderer.shown(display, style: style) }
            }
            let model = try Self.decode(reply, of: .get, as: ValueViewModel.self)
            return try Self.present(json, model) { ValueRenderer.render(model, style: style) }
        case .set(let key, let value):
            let parameters: JSONValue = ["key": .string(key), "text": .string(value)]
            let reply = try client.call(.set, parameters)
            // As for get: the line needs six fields, read without the generic decoder.
            if !json, let item = reply["item"], let key = item["key"]?.stringValue,
                let display = item["display"]?.stringValue, let layer = item["layer"]?.stringValue,
                let previous = reply["previous"]?["display"]?.stringValue,
                let previousLayer = reply["previous"]?["layer"]?.stringValue, let changed = reply["changed"]?.boolValue
            {
                return SetResultRenderer.render(
                    key: key,
                    display: display,
                    previous: previous,
                    changed: changed,
                    layers: (previousLayer, layer),
                    style: style
                )
            }
            let model = try Self.decode(reply, of: .set, as: SetResultViewModel.self)
            return try Self.present(json, model) { SetResultRenderer.render(model, style: style) }
        case .reset(let target):
            let parameters: JSONValue = ["key": .string(target)]
            let model: ResetResultViewModel
            do {
                model = try Self.request(client, .reset, parameters, as: ResetResultViewModel.self)
            } catch
                where error.errorName == SettingsErrorViewModel.keyLocked(key: target, source: "").errorName
                && !target.contains(".")
            {
                // A module is reset whole or not at all: say so, or the other keys would seem reset.
                var failure = error
                failure.message +=
                    "; no key of module \(TableFormatter.printable(target)) was reset (reset the others one by one)"
                throw failure
            }
            return try Self.present(json, model) {
                ResetResultRenderer.render(model, target: target, style: style)
            }
        case .explain(let key):
            let parameters: JSONValue = ["key": .string(key)]
            let model = try Self.request(client, .explain, parameters, as: ExplainViewModel.self)
            return try Self.present(json, model) { ExplainRenderer.render(model, style: style) }
        case .status:
            let model = try Self.request(client, .status, [:], as: StatusViewModel.self)
            let text = try Self.present(json, model) { StatusRenderer.render(model, style: style) }
            try Self.failIfFailing(model.sync, output: text)
            return text
        case .sync:
            // A sync waits for the remote: for a poll already under way, then for its own fetch, each up to the
            // daemon's remote-timeout (30 s by default). The daemon answering late is not the daemon unreachable.
            var patient = client
            patient.timeoutSeconds = max(client.timeoutSeconds, Self.syncTimeoutSeconds)
            let model = try Self.request(patient, .sync, [:], as: SyncResultViewModel.self)
            let text = try Self.present(json, model) { StatusRenderer.render(model, style: style) }
            try Self.failIfFailing(model.sync, output: text)
            return text
        case .dump(let modules, let effective):
            var parameters: [String: JSONValue] = [:]
            if !modules.isEmpty {
                // `dump network network` asks for one module: each is sent once, in the order first given.
                var seen: Set<String> = []
                parameters["modules"] = .array(modules.filter { seen.insert($0).inserted }.map { .string($0) })
            }
            if effective { parameters["effective"] = true }
            let model = try Self.request(client, .dump, .object(parameters), as: DumpViewModel.self)
            // A dump is JSON, with or without --json: the file load reads.
            return try Self.present(true, model) { "" }
        case .load(let file, let dryRun, let replace, let ifRevision):
            let dump = try DumpFile.read(path: file)
            if let missing = ifRevision.keys.sorted().first(where: { dump.modules[$0] == nil }) {
                let (module, name) = (TableFormatter.printable(missing), TableFormatter.printable(file))
                throw CLIFailure(.usage, "--if-revision \(module)=…: \(name) has no module \(module)")
            }
            return try Self.load(
                dump.modules,
                client: client,
                dryRun: dryRun,
                replace: replace,
                ifRevision: ifRevision,
                json: json,
                style: style
            )
        case .diff(let module, let file?, let replace):
            let dump = try DumpFile.read(path: file)
            // A file without the module would not change it when loaded, --replace or not (the daemon still says
            // whether the module exists): the diff is empty.
            let values = dump.modules[module]
            if values == nil {
                // MODULE, not the file, is what is wrong when the daemon has no such module: said as `dump` says it.
                _ = try Self.request(client, .showModule, ["module": .string(module)], as: ModuleViewModel.self)
            }
            return try Self.load(
                [module: values ?? [:]],
                client: client,
                dryRun: true,
                replace: replace && values != nil,
                ifRevision: [:],
                json: json,
                style: style
            )
        case .diff(let module, nil, _):
            let parameters: JSONValue = ["module": .string(module)]
            let shown = try Self.request(client, .showModule, parameters, as: ModuleViewModel.self)
            let changes = shown.sections.flatMap(\.items).filter { $0.value != $0.defaultValue }.map { item in
                LoadChangeViewModel(
                    key: item.key,
                    old: item.defaultValue,
                    oldDisplay: item.defaultDisplay,
                    oldLayer: .default,
                    value: item.value,
                    display: item.display,
                    layer: item.layer
                )
            }
            let model = ModuleLoadViewModel(
                module: module,
                revision: shown.revision,
                changed: !changes.isEmpty,
                changes: changes
            )
            return try Self.present(json, model) { LoadResultRenderer.render(differences: model, style: style) }
        }
    }

    /// Calls `Load` with `modules` and renders what it did, or would do; with a dry run that found values that
    /// cannot be loaded, fails after the output with the status of the first.
    private static func load(
        _ modules: [String: [String: JSONValue]],
        client: VarlinkClient,
        dryRun: Bool,
        replace: Bool,
        ifRevision: [String: Int64],
        json: Bool,
        style: TextStyle
    ) throws(CLIFailure) -> String {
        var parameters: [String: JSONValue] = [
            "modules": .object(modules.mapValues { .object(["values": .object($0)]) })
        ]
        if dryRun { parameters["dryRun"] = true }
        if replace { parameters["replace"] = true }
        if !ifRevision.isEmpty { parameters["ifRevision"] = .object(ifRevision.mapValues { .int($0) }) }
        let model = try Self.request(client, .load, .object(parameters), as: LoadResultViewModel.self)
        let text = try Self.present(json, model) { LoadResultRenderer.render(model, style: style) }
        if let first = model.problems.first {
            let count = model.problems.count
            throw CLIFailure(
                ExitStatus(problem: first),
                "\(count) value\(count == 1 ? "" : "s") cannot be loaded",
                output: text
            )
        }
        return text
    }

    /// Exit status 9 after the output when remote sync is failing, so that scripts and monitoring notice.
    /// How long `sync` waits for the daemon's answer: two fetches of the default remote-timeout, and a margin.
    package static let syncTimeoutSeconds = 90

    private static func failIfFailing(_ sync: SyncStatusViewModel, output: String) throws(CLIFailure) {
        guard sync.state == "failing" else { return }
        let reason = sync.lastError.map { ": \($0)" } ?? ""
        throw CLIFailure(.syncFailing, "remote sync is failing\(reason)", output: output)
    }

    /// Calls `method` and reads its reply as a `Model`.
    private static func request<Model: Decodable>(
        _ client: VarlinkClient,
        _ method: SettingsMethod,
        _ parameters: JSONValue,
        as model: Model.Type
    ) throws(CLIFailure) -> Model {
        try Self.decode(try client.call(method, parameters), of: method, as: model)
    }

    /// Reads the reply of `method` as a `Model`.
    private static func decode<Model: Decodable>(
        _ reply: JSONValue,
        of method: SettingsMethod,
        as model: Model.Type
    ) throws(CLIFailure) -> Model {
        do {
            return try JSONValueDecoder().decode(model, from: reply)
        } catch {
            throw CLIFailure(.failure, "unexpected reply of the settings daemon to \(method.rawValue): \(error)")
        }
    }

    /// `model` as JSON, pretty-printed, with `--json` (`json`), else the text `render` makes.
    /// What `show` without a module prints with `--json`: every module, as `ShowModule` replies with it.
    struct ModulesShown: Encodable {
        var modules: [ModuleViewModel]
    }

    static func present<Model: Encodable>(
        _ json: Bool,
        _ model: Model,
        _ render: () -> String
    ) throws(CLIFailure) -> String {
        guard json else { return render() }
        do {
            return try JSONValueEncoder().encode(model).prettyPrinted()
        } catch {
            throw CLIFailure(.failure, "could not write the reply as JSON: \(error)")
        }
    }
}

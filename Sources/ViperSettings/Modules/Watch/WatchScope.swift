/// What a watch stream covers: whole modules, or some keys of them.
struct WatchScope: Sendable {
    /// The schemas of the watched modules, by name.
    var modules: [String: ModuleSchema]
    /// For modules watched only in part, the watched keys (`section.item`); a module absent here is watched whole.
    var keys: [String: Set<String>]
    /// Whether every module is watched, those a schema reload adds included.
    var everything = false

    /// Reads the targets, modules (`network`) or keys (`network.proxy.port`); every module when there are none.
    init(targets: [String], schemas: [ModuleSchema]) throws(SettingsFailure) {
        let byName = Dictionary(schemas.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        guard !targets.isEmpty else {
            self.modules = byName
            self.keys = [:]
            self.everything = true
            return
        }
        var modules: [String: ModuleSchema] = [:]
        var keys: [String: Set<String>] = [:]
        var whole: Set<String> = []
        for target in targets {
            guard let dot = target.firstIndex(of: ".") else {
                guard let schema = byName[target] else { throw .noSuchModule(module: target) }
                modules[target] = schema
                whole.insert(target)
                continue
            }
            let module = String(target[..<dot])
            let path = String(target[target.index(after: dot)...])
            // As every other call says of a key: its module first, then the key.
            guard let schema = byName[module] else { throw .noSuchModule(module: module) }
            guard schema.item(at: path) != nil else { throw .noSuchKey(key: target) }
            modules[module] = schema
            keys[module, default: []].insert(path)
        }
        for module in whole { keys[module] = nil }
        self.modules = modules
        self.keys = keys
    }

    /// The watched modules, sorted.
    var moduleNames: [String] { self.modules.keys.sorted() }

    /// Whether the key `path` of `module` is watched.
    func includes(module: String, path: String) -> Bool {
        guard self.modules[module] != nil else { return false }
        return self.keys[module].map { $0.contains(path) } ?? true
    }
}

/// What a watch stream covers: whole modules, or some keys of them.
struct WatchScope: Sendable {
    /// The schemas of the watched modules, by name.
    var modules: [String: ModuleSchema]
    /// For modules watched only in part, the watched keys (`section.item`); a module absent here is watched whole.
    var keys: [String: Set<String>]
    /// Whether every module is watched, those a schema reload adds included.
    var everything = false
    /// Watched modules no longer served, named by the cursor the watch resumes from: a schema change removed them
    /// (a reload, or an upgrade while the daemon was stopped) after that cursor, and their history tells it.
    var retired: Set<String> = []
    /// Watched keys of served modules that their schema no longer has, named with a cursor of their module: a schema
    /// change removed them after it, and the module's history tells it.
    var retiredKeys: [String: Set<String>] = [:]

    /// Reads the targets, modules (`network`) or keys (`network.proxy.port`); every module when there are none. A
    /// module not served is `NoSuchModule`, unless it is in `resumable` (the modules of the cursor resumed from).
    init(targets: [String], schemas: [ModuleSchema], resumable: Set<String> = []) throws(SettingsFailure) {
        let byName = Dictionary(schemas.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        guard !targets.isEmpty else {
            self.modules = byName
            self.keys = [:]
            self.everything = true
            return
        }
        var modules: [String: ModuleSchema] = [:]
        var retired: Set<String> = []
        var retiredKeys: [String: Set<String>] = [:]
        var keys: [String: Set<String>] = [:]
        var whole: Set<String> = []
        for target in targets {
            let dot = target.firstIndex(of: ".")
            let module = dot.map { String(target[..<$0]) } ?? target
            // As every other call says of a key: its module first, then the key.
            guard let schema = byName[module] else {
                guard resumable.contains(module) else { throw .noSuchModule(module: module) }
                retired.insert(module)
                if let dot {
                    keys[module, default: []].insert(String(target[target.index(after: dot)...]))
                } else {
                    whole.insert(module)
                }
                continue
            }
            guard let dot else {
                modules[module] = schema
                whole.insert(module)
                continue
            }
            let path = String(target[target.index(after: dot)...])
            if schema.item(at: path) == nil {
                guard resumable.contains(module) else { throw .noSuchKey(key: target) }
                retiredKeys[module, default: []].insert(path)
            }
            modules[module] = schema
            keys[module, default: []].insert(path)
        }
        for module in whole { keys[module] = nil }
        self.modules = modules
        self.keys = keys
        self.retired = retired
        self.retiredKeys = retiredKeys
    }

    /// Takes the schema of each watched module from `schemas` (those served now), where it is still served.
    mutating func refresh(from schemas: [ModuleSchema]) {
        for schema in schemas where self.modules[schema.name] != nil { self.modules[schema.name] = schema }
    }

    /// The watched modules that are served, sorted.
    var moduleNames: [String] { self.modules.keys.sorted() }

    /// The watched modules, served or retired, sorted: those whose history a resumed watch replays.
    var resumedModuleNames: [String] { Set(self.modules.keys).union(self.retired).sorted() }

    /// Whether the key `path` of `module` is watched.
    func includes(module: String, path: String) -> Bool {
        guard self.modules[module] != nil || self.retired.contains(module) else { return false }
        return self.keys[module].map { $0.contains(path) } ?? true
    }
}

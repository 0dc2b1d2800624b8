import SettingsAPI
import Synchronization

/// What the remote values are worth under the schemas served now: which the schemas reject, and how many are in
/// force. Both change with the source's snapshot and with the schemas, so they are worked out again after every
/// snapshot, at start, and when the schemas are reloaded.
extension SyncInteractor {
    /// Records in the status how many stored remote values are in force per layer (a value its schema rejects is
    /// ignored, so it is not) and every rejected remote value, sorted by module and key: what the last snapshot holds
    /// that the schemas reject or that the source could not read, and the stored values the schemas reject now (a
    /// reload narrowed or removed the key, and the source has not said otherwise since).
    /// Why the values of a module no schema serves are rejected, naming some of them, so that they can be found at
    /// the source: "no such module: its values a.b (recommended), c.d (mandatory)".
    static func noSuchModule(_ values: RemoteModuleValues?) -> String {
        guard let values else { return "no such module" }
        let keys =
            (values.recommended.keys.map { "\($0) (recommended)" } + values.mandatory.keys.map { "\($0) (mandatory)" })
            .sorted()
        guard !keys.isEmpty else { return "no such module" }
        let shown = keys.prefix(5).joined(separator: ", ")
        return "no such module: its values \(shown)" + (keys.count > 5 ? " and \(keys.count - 5) more" : "")
    }

    public func refresh() async {
        let last = self.lastApplied.withLock { $0 }
        var rejected = (last?.snapshot.rejected ?? []) + (last?.notStored ?? [])
        let schemas = self.schemas()
        let known = Set(schemas.map(\.name))
        for module in last?.snapshot.modules.keys.sorted() ?? [] where !known.contains(module) {
            rejected.append(
                RemoteRejection(module: module, key: module, reason: Self.noSuchModule(last?.snapshot.modules[module]))
            )
        }
        var recommended = 0
        var mandatory = 0
        for schema in schemas {
            if let raw = last?.snapshot.modules[schema.name] {
                rejected += Self.checked(raw, against: schema).rejected
            }
            guard let state = try? await self.repository.state(of: schema.name) else { continue }
            let broken = schema.brokenValues(in: state).filter { $0.layer != .local }
            let ignored = Set(broken.map { "\($0.layer.rawValue) \($0.path)" })
            recommended += state.recommended.keys.count(where: { !ignored.contains("recommended \($0)") })
            mandatory += state.mandatory.keys.count(where: { !ignored.contains("mandatory \($0)") })
            let told = Set(rejected.map { "\($0.key) \($0.layer?.rawValue ?? "")" })
            for value in broken {
                let key = "\(schema.name).\(value.path)"
                // A value the source still sends and the schema rejects is told once, as the source sent it.
                guard !told.contains("\(key) \(value.layer.rawValue)") else { continue }
                let reason =
                    schema.item(at: value.path) == nil
                    ? "cached value \(value.value.logText()) is for a key the schema no longer has; ignored"
                    : "cached value \(value.value.logText()) no longer fits the schema (\(value.reason)); ignored"
                rejected.append(RemoteRejection(module: schema.name, key: key, reason: reason, layer: value.layer))
            }
        }
        self.recorder.inForce(recommended: recommended, mandatory: mandatory)
        self.recorder.rejected(rejected.sorted().map(\.description))
    }

    /// The values of `raw` that `schema` accepts, by `section.item`; a value it rejects maps to `nil` (the last
    /// known good value of that key stays), a key it does not have is left out. Each is in `rejected`, with why.
    static func checked(
        _ raw: RemoteModuleValues,
        against schema: ModuleSchema
    ) -> (
        recommended: [String: SettingValue?], mandatory: [String: SettingValue?], rejected: [RemoteRejection]
    ) {
        var rejected: [RemoteRejection] = []
        func checked(_ values: [String: JSONValue], layer: LayerName) -> [String: SettingValue?] {
            var result: [String: SettingValue?] = [:]
            for (path, json) in values {
                let key = "\(schema.name).\(path)"
                guard let item = schema.item(at: path) else {
                    rejected.append(RemoteRejection(module: schema.name, key: key, reason: "no such key", layer: layer))
                    continue
                }
                do {
                    result[path] = try item.type.value(fromJSON: json)
                } catch {
                    let reason = "value \(RemoteRejection.valueText(json)): \(error.reason)"
                    rejected.append(RemoteRejection(module: schema.name, key: key, reason: reason, layer: layer))
                    result[path] = .some(nil)  // keep the last known good value of this key
                }
            }
            return result
        }
        let recommended = checked(raw.recommended, layer: .recommended)
        let mandatory = checked(raw.mandatory, layer: .mandatory)
        return (recommended, mandatory, rejected)
    }
}

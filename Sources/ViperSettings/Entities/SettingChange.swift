/// A change of one key's effective value, as kept in a module's change history and sent to watchers.
public struct SettingChange: Sendable, Hashable {
    /// The key inside its module, `section.item`.
    public var path: String
    /// The effective value before; `nil` when the key did not exist (a schema reload added it).
    public var old: SettingValue?
    /// The layer `old` came from.
    public var oldLayer: Layer?
    /// The effective value after; `nil` when the key no longer exists (a schema reload removed it).
    public var new: SettingValue?
    /// The layer `new` comes from.
    public var layer: Layer?

    public init(path: String, old: SettingValue?, oldLayer: Layer?, new: SettingValue?, layer: Layer?) {
        self.path = path
        self.old = old
        self.oldLayer = oldLayer
        self.new = new
        self.layer = layer
    }

    /// The change between two resolutions of the same key, or `nil` when its effective value is the same (a value
    /// that only moves to another layer is no change).
    public init?(from before: ResolvedSetting, to after: ResolvedSetting) {
        guard before.value != after.value else { return nil }
        self.init(
            path: after.key.path,
            old: before.value,
            oldLayer: before.winner,
            new: after.value,
            layer: after.winner
        )
    }

    /// The changes of every item of `schema` between two states, in schema order.
    public static func changes(in schema: ModuleSchema, from before: ModuleState, to after: ModuleState) -> [Self] {
        schema.sections.flatMap { section in
            section.items.compactMap { item in
                SettingChange(
                    from: ResolvedSetting(module: schema.name, sectionID: section.id, item: item, state: before),
                    to: ResolvedSetting(module: schema.name, sectionID: section.id, item: item, state: after)
                )
            }
        }
    }

    /// The changes of the items at `paths` (`section.item`, unknown ones skipped) between two states, sorted by path.
    public static func changes(
        in schema: ModuleSchema,
        paths: some Sequence<String>,
        from before: ModuleState,
        to after: ModuleState
    ) -> [Self] {
        // A set changes one key: no set to build and sort for it.
        var unique = Array(paths)
        if unique.count > 1 { unique = Set(unique).sorted() }
        return unique.compactMap { path in
            guard let (section, item) = schema.entry(at: path) else { return nil }
            return SettingChange(
                from: ResolvedSetting(module: schema.name, sectionID: section, item: item, state: before),
                to: ResolvedSetting(module: schema.name, sectionID: section, item: item, state: after)
            )
        }
    }
}

/// Shapes a module's sections and items from its schema and resolved values, in schema order.
public struct SettingsDataManager: SettingsDataManagerProtocol {
    public init() {}

    public func sections(of schema: ModuleSchema, settings: [ResolvedSetting]) -> [ModuleSection] {
        var bySection: [String: [ResolvedSetting]] = [:]
        for setting in settings { bySection[setting.key.section, default: []].append(setting) }
        return schema.sections.compactMap { section in
            let order = Dictionary(uniqueKeysWithValues: section.items.enumerated().map { ($1.id, $0) })
            let items = (bySection[section.id] ?? []).sorted {
                order[$0.item.id, default: .max] < order[$1.item.id, default: .max]
            }
            return items.isEmpty ? nil : ModuleSection(id: section.id, title: section.title, settings: items)
        }
    }
}

/// One setting as a schema declares it.
public struct ItemSchema: Sendable, Hashable {
    public var id: String
    public var title: String
    public var summary: String
    public var type: SettingType
    public var defaultValue: SettingValue

    public init(id: String, title: String, summary: String, type: SettingType, defaultValue: SettingValue) {
        self.id = id
        self.title = title
        self.summary = summary
        self.type = type
        self.defaultValue = defaultValue
    }
}

/// A titled group of items.
public struct SectionSchema: Sendable, Hashable {
    public var id: String
    public var title: String
    public var items: [ItemSchema]

    public init(id: String, title: String, items: [ItemSchema]) {
        self.id = id
        self.title = title
        self.items = items
    }
}

/// Who may write a module besides root.
public struct Writers: Sendable, Hashable {
    public var users: [String]
    public var groups: [String]

    public init(users: [String] = [], groups: [String] = []) {
        self.users = users
        self.groups = groups
    }
}

/// A module: a named group of settings with one schema (config/modules/NAME.json).
public struct ModuleSchema: Sendable, Hashable {
    public var name: String
    public var title: String
    public var description: String
    public var writers: Writers
    public var sections: [SectionSchema]

    public init(name: String, title: String, description: String, writers: Writers, sections: [SectionSchema]) {
        self.name = name
        self.title = title
        self.description = description
        self.writers = writers
        self.sections = sections
    }

    /// The item at `section.item`, or `nil`.
    public func item(at path: String) -> ItemSchema? {
        let parts = path.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, let section = self.sections.first(where: { $0.id == parts[0] }) else { return nil }
        return section.items.first { $0.id == parts[1] }
    }

    /// Every item with its `section.item` path, in schema order.
    public var items: [(path: String, item: ItemSchema)] {
        self.sections.flatMap { section in section.items.map { (path: "\(section.id).\($0.id)", item: $0) } }
    }
}

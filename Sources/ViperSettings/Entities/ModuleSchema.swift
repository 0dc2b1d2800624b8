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
    /// Where each item is, for lookups by path; built with the schema, checked on use (see ``entry(at:)``).
    var positions = ItemPositions()

    /// A module with no keys: what a module not served is, for a change of the schemas.
    public static func empty(named name: String) -> ModuleSchema {
        ModuleSchema(name: name, title: "", description: "", writers: Writers(), sections: [])
    }

    public init(name: String, title: String, description: String, writers: Writers, sections: [SectionSchema]) {
        self.name = name
        self.title = title
        self.description = description
        self.writers = writers
        self.sections = sections
        self.positions = ItemPositions(sections)
    }

    /// The item at `section.item`, or `nil`.
    public func item(at path: String) -> ItemSchema? {
        self.entry(at: path)?.item
    }

    /// The item at `section.item` with its section's id, or `nil`: one lookup, whatever the module's size. A
    /// position the index no longer matches (the sections were changed after the schema was made) falls back to
    /// searching the sections.
    public func entry(at path: String) -> (sectionID: String, item: ItemSchema)? {
        guard let dot = path.utf8.firstIndex(of: UInt8(ascii: ".")) else { return nil }
        let sectionID = path[..<dot]
        let itemID = path[path.index(after: dot)...]
        if let position = self.positions.table[path], self.sections.indices.contains(position.section) {
            let section = self.sections[position.section]
            if section.id == sectionID, section.items.indices.contains(position.item),
                section.items[position.item].id == itemID
            {
                return (section.id, section.items[position.item])
            }
        }
        guard let section = self.sections.first(where: { $0.id == sectionID }),
            let item = section.items.first(where: { $0.id == itemID })
        else { return nil }
        return (section.id, item)
    }

    /// How many items the schema has (without building ``items``).
    public var itemCount: Int { self.sections.reduce(0) { $0 + $1.items.count } }

    /// Every item with its `section.item` path, in schema order.
    public var items: [(path: String, item: ItemSchema)] {
        self.sections.flatMap { section in section.items.map { (path: "\(section.id).\($0.id)", item: $0) } }
    }
}

/// The positions of a schema's items by `section.item` path: derived from the sections, so not part of the
/// schema's value (two schemas with the same sections are equal whatever their index).
struct ItemPositions: Sendable, Hashable {
    struct Position: Sendable {
        var section: Int
        var item: Int
    }

    let table: [String: Position]

    init() {
        self.table = [:]
    }

    init(_ sections: [SectionSchema]) {
        var table: [String: Position] = [:]
        for (sectionIndex, section) in sections.enumerated() {
            for (itemIndex, item) in section.items.enumerated() where table["\(section.id).\(item.id)"] == nil {
                table["\(section.id).\(item.id)"] = Position(section: sectionIndex, item: itemIndex)
            }
        }
        self.table = table
    }

    static func == (lhs: Self, rhs: Self) -> Bool { true }

    func hash(into hasher: inout Hasher) {}
}

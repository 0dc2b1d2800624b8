/// A section of a module with its items in schema order (the IDL's `Section`).
public struct SectionViewModel: Sendable, Hashable, Codable {
    public var id: String
    public var title: String
    public var items: [ItemViewModel]

    public init(id: String, title: String, items: [ItemViewModel]) {
        self.id = id
        self.title = title
        self.items = items
    }
}

/// The reply of `ShowModule`: a module's sections and items with their effective values.
public struct ModuleViewModel: Sendable, Hashable, Codable {
    public var module: String
    public var title: String
    public var description: String
    public var revision: Int64
    public var sections: [SectionViewModel]

    public init(module: String, title: String, description: String, revision: Int64, sections: [SectionViewModel]) {
        self.module = module
        self.title = title
        self.description = description
        self.revision = revision
        self.sections = sections
    }
}

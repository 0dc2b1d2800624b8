/// A section of a module with its items in schema order (the IDL's `Section`).
public struct SectionViewModel: Sendable, Hashable {
    public var id: String
    public var title: String
    public var items: [ItemViewModel]

    public init(id: String, title: String, items: [ItemViewModel]) {
        self.id = id
        self.title = title
        self.items = items
    }

    /// The wire form.
    public var json: JSONValue {
        ["id": .string(self.id), "title": .string(self.title), "items": .array(self.items.map(\.json))]
    }

    /// Reads the wire form.
    public init(json: JSONValue) throws(JSONDecodingError) {
        self.id = try json.string("id")
        self.title = try json.string("title")
        self.items = try json.array("items") { element throws(JSONDecodingError) in try ItemViewModel(json: element) }
    }
}

/// The reply of `ShowModule`: a module's sections and items with their effective values.
public struct ModuleViewModel: Sendable, Hashable {
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

    /// The wire form.
    public var json: JSONValue {
        [
            "module": .string(self.module), "title": .string(self.title), "description": .string(self.description),
            "revision": .int(self.revision), "sections": .array(self.sections.map(\.json)),
        ]
    }

    /// Reads the wire form.
    public init(json: JSONValue) throws(JSONDecodingError) {
        self.module = try json.string("module")
        self.title = try json.string("title")
        self.description = try json.string("description")
        self.revision = try json.int("revision")
        self.sections = try json.array("sections") { element throws(JSONDecodingError) in
            try SectionViewModel(json: element)
        }
    }
}

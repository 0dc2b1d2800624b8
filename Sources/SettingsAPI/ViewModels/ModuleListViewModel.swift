/// One module in the list of modules (the IDL's `ModuleSummary`).
public struct ModuleSummaryViewModel: Sendable, Hashable {
    public var name: String
    public var title: String
    public var description: String
    public var keys: Int
    public var modified: Int
    public var revision: Int64

    public init(name: String, title: String, description: String, keys: Int, modified: Int, revision: Int64) {
        self.name = name
        self.title = title
        self.description = description
        self.keys = keys
        self.modified = modified
        self.revision = revision
    }

    /// The wire form.
    public var json: JSONValue {
        [
            "name": .string(self.name), "title": .string(self.title), "description": .string(self.description),
            "keys": .int(Int64(self.keys)), "modified": .int(Int64(self.modified)), "revision": .int(self.revision),
        ]
    }

    /// Reads the wire form.
    public init(json: JSONValue) throws(JSONDecodingError) {
        self.name = try json.string("name")
        self.title = try json.string("title")
        self.description = try json.string("description")
        self.keys = Int(try json.int("keys"))
        self.modified = Int(try json.int("modified"))
        self.revision = try json.int("revision")
    }
}

/// The reply of `ListModules`.
public struct ModuleListViewModel: Sendable, Hashable {
    public var modules: [ModuleSummaryViewModel]

    public init(modules: [ModuleSummaryViewModel]) { self.modules = modules }

    /// The wire form.
    public var json: JSONValue { ["modules": .array(self.modules.map(\.json))] }

    /// Reads the wire form.
    public init(json: JSONValue) throws(JSONDecodingError) {
        self.modules = try json.array("modules") { element throws(JSONDecodingError) in
            try ModuleSummaryViewModel(json: element)
        }
    }
}

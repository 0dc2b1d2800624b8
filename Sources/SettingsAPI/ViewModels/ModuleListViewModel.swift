/// One module in the list of modules (the IDL's `ModuleSummary`).
public struct ModuleSummaryViewModel: Sendable, Hashable, Codable {
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
}

/// The reply of `ListModules`.
public struct ModuleListViewModel: Sendable, Hashable, Codable {
    public var modules: [ModuleSummaryViewModel]

    public init(modules: [ModuleSummaryViewModel]) { self.modules = modules }
}

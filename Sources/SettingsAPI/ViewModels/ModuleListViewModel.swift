/// One module in the list of modules (the IDL's `ModuleSummary`).
public struct ModuleSummaryViewModel: Sendable, Hashable, Codable {
    /// The module's name, `module` as in every other reply.
    public var module: String
    public var title: String
    public var description: String
    public var keys: Int
    public var modified: Int
    public var revision: Int64

    public init(module: String, title: String, description: String, keys: Int, modified: Int, revision: Int64) {
        self.module = module
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

/// A key `module.section.item`, e.g. `network.proxy.port`.
public struct SettingKey: Sendable, Hashable, CustomStringConvertible {
    public var module: String
    public var section: String
    public var item: String

    public init(module: String, section: String, item: String) {
        self.module = module
        self.section = section
        self.item = item
    }

    /// Parses `module.section.item`; `nil` unless there are exactly three non-empty parts.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else { return nil }
        self.init(module: String(parts[0]), section: String(parts[1]), item: String(parts[2]))
    }

    /// The key inside its module, `section.item`, as stored and as used in remote documents.
    public var path: String { self.section + "." + self.item }

    public var description: String { "\(self.module).\(self.section).\(self.item)" }
}

public import Mustache

/// A file on the host rendered from settings: one `NAME.json` in the targets directory and its Mustache template.
public struct ApplyTarget: Sendable {
    /// The target's name: its file's name without `.json`.
    public var name: String
    /// The target file it was read from, for messages.
    public var source: String
    /// What it is for, in words.
    public var description: String
    /// The modules, sections or keys whose values the template reads (`network.dns`, `power`,
    /// `locale.language.lang`): a change to any of them renders the target again.
    public var reads: [String]
    /// The template, parsed.
    public var template: MustacheTemplate
    /// The size in bytes of the template's largest section (its text between its tags, the template's whole size
    /// when it cannot be told): what one pass over a section prints of the template's own text at most, for
    /// ``RenderBudget``.
    public var sectionSize: Int
    /// The names the template looks up (``TemplateNames``), to tell keys it names that nothing gives it.
    public var templateNames: [String]
    /// The names the template prints as they are (`{{network.dns}}`), to tell a list or section printed so.
    public var printedNames: [String]
    /// The names the template looks up outside of every section (``TemplateNames/topLevel(_:)``), to tell a module
    /// it names that the daemon does not serve.
    public var topLevelNames: [String]
    /// The transforms the template applies (`equalzero` in `{{#equalzero(power.idle.suspend-after)}}`).
    public var transformNames: [String]
    /// The absolute path of the file it writes (under `root`).
    public var destination: String
    /// The root directory the destination is under (`--root`), empty for the host.
    public var root: String
    /// Owner, group and permission bits of the file written.
    public var owner: UInt32
    public var group: UInt32
    public var mode: UInt32
    /// A command run on a copy of the rendered file before the destination is replaced; the argument `{file}` is
    /// that copy's path (appended when no argument is `{file}`). A non-zero exit leaves the destination untouched.
    public var check: [String]?
    /// A command run after the destination was replaced, so that its program reads it again.
    public var reload: [String]?

    public init(
        name: String,
        source: String,
        description: String,
        reads: [String],
        template: MustacheTemplate,
        templateNames: [String] = [],
        printedNames: [String] = [],
        topLevelNames: [String] = [],
        transformNames: [String] = [],
        sectionSize: Int = 0,
        destination: String,
        root: String = "",
        owner: UInt32,
        group: UInt32,
        mode: UInt32,
        check: [String]?,
        reload: [String]?
    ) {
        self.name = name
        self.source = source
        self.description = description
        self.reads = reads
        self.template = template
        self.templateNames = templateNames
        self.printedNames = printedNames
        self.topLevelNames = topLevelNames
        self.transformNames = transformNames
        self.sectionSize = sectionSize
        self.destination = destination
        self.root = root
        self.owner = owner
        self.group = group
        self.mode = mode
        self.check = check
        self.reload = reload
    }

    /// Whether the template reads `key` (`module.section.item`).
    public func reads(key: String) -> Bool {
        self.reads.contains { key == $0 || key.hasPrefix($0 + ".") }
    }

    /// The modules it reads from.
    public var modules: Set<String> {
        Set(self.reads.map(Self.module(of:)))
    }

    /// The module of `key` (`module.section.item`), or of a `reads` entry.
    public static func module(of key: String) -> String {
        String(key.prefix { $0 != "." })
    }

    /// `check` with `{file}` replaced by `path`, or `path` appended.
    public func checkCommand(for path: String) -> [String]? {
        guard let check else { return nil }
        guard check.contains("{file}") else { return check + [path] }
        return check.map { $0 == "{file}" ? path : $0 }
    }
}

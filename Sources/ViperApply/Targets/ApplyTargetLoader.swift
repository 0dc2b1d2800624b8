import Foundation
import Glibc
import Mustache
import SettingsAPI
import ViperPOSIX

/// Reads the targets directory: every `NAME.json` there is a target, with its template beside it. A bad target is
/// reported with its file and reason and skipped; the others load.
public struct ApplyTargetLoader: Sendable {
    /// What loading found: the usable targets, by name, and a problem per unusable file.
    public struct Result: Sendable {
        public var targets: [ApplyTarget]
        public var problems: [ApplyError]
    }

    /// The directory of target files.
    public var directory: String
    /// Prefixed to every destination (like `systemctl --root`), for images and tests; empty for the host.
    public var root: String

    public init(directory: String, root: String = "") {
        self.directory = directory
        self.root = root
    }

    static let fields: Set<String> = [
        "description", "reads", "template", "destination", "owner", "group", "mode", "check", "reload",
    ]

    /// Loads every target, in the byte order of their file names (as `LC_ALL=C ls` lists them).
    ///
    /// A file has one target: of the targets whose destinations are one file (also spelt otherwise, or through a
    /// directory's symbolic link), one keeps it and the others are refused, naming it. At a reload, `running` are
    /// the targets loaded until then: one of them that still names the file keeps it, so that a target added
    /// meanwhile never takes over a file another applies already; otherwise (at start, or a file new to all of them)
    /// the first in file-name order keeps it.
    /// - Throws: ``ApplyError/targetsDirectory(path:reason:)`` when the directory cannot be read (missing, not a
    ///   directory), with the system's reason.
    public func load(running: [ApplyTarget] = []) throws(ApplyError) -> Result {
        let names = try Self.entries(of: self.directory)
        var loaded: [(path: String, target: Swift.Result<ApplyTarget, ApplyError>)] = []
        for file in names.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        where file.hasSuffix(".json") && !file.hasPrefix(".") {
            let path = self.directory + "/" + file
            let name = String(file.dropLast(5))
            loaded.append((path, Swift.Result { () throws(ApplyError) in try self.load(path: path, name: name) }))
        }
        // The same file by another spelling too: a directory reached through a symbolic link.
        let applying = Dictionary(
            running.map { (Self.canonical($0.destination), $0.name) },
            uniquingKeysWith: { first, _ in first }
        )
        let files = loaded.compactMap { try? $0.target.get() }.map { ($0.name, Self.canonical($0.destination)) }
        var keepers: [String: String] = [:]
        for (name, file) in files where applying[file] == name { keepers[file] = name }
        for (name, file) in files where keepers[file] == nil { keepers[file] = name }
        var result = Result(targets: [], problems: [])
        for (path, outcome) in loaded {
            do throws(ApplyError) {
                let target = try outcome.get()
                let file = Self.canonical(target.destination)
                if let keeper = keepers[file], keeper != target.name {
                    throw .badTarget(
                        file: path,
                        reason: "destination \(target.destination) is also target \(keeper)'s"
                            + (applying[file] == keeper
                                ? ", which applies it already: it keeps the file, left as it is; give this target"
                                    + " another destination"
                                : ", which comes first in file-name order and keeps it; give this target another"
                                    + " destination")
                    )
                }
                result.targets.append(target)
            } catch {
                result.problems.append(error)
            }
        }
        return result
    }

    /// The names in `directory` but `.` and `..`.
    static func entries(of directory: String) throws(ApplyError) -> [String] {
        guard let stream = opendir(directory) else {
            throw .targetsDirectory(path: directory, reason: SystemErrorText.describe(errno))
        }
        defer { closedir(stream) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw .targetsDirectory(path: directory, reason: SystemErrorText.describe(errno)) }
                return names
            }
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }

    /// Loads one target file.
    public func load(path: String, name: String) throws(ApplyError) -> ApplyTarget {
        func bad(_ reason: String) -> ApplyError { .badTarget(file: path, reason: reason) }
        guard let data = FileManager.default.contents(atPath: path) else { throw bad("cannot read the file") }
        let document: JSONValue
        do {
            document = try JSONValue(parsing: Array(data))
        } catch {
            throw bad("not JSON: \(error)")
        }
        guard let fields = document.objectValue else { throw bad("must be a JSON object") }
        if let unknown = fields.keys.sorted().first(where: { !Self.fields.contains($0) }) {
            throw bad("unknown field '\(unknown)' (known: \(Self.fields.sorted().joined(separator: ", ")))")
        }
        // A NUL would cut a name, a path or an argument short where it reaches the system (`root\u0000x` is root).
        if let field = fields.keys.sorted().first(where: { Self.containsNUL(fields[$0]!) }) {
            throw bad("'\(field)' contains a NUL character (\\u0000), which no name, path or argument can hold")
        }
        guard let reads = fields["reads"]?.arrayValue?.compactMap(\.stringValue), !reads.isEmpty,
            reads.count == fields["reads"]?.arrayValue?.count, !reads.contains(where: \.isEmpty)
        else { throw bad("'reads' must be a non-empty list of modules, sections or keys") }

        guard let templateName = fields["template"]?.stringValue, !templateName.isEmpty, !templateName.contains("/"),
            !templateName.hasPrefix(".")
        else {
            throw bad("'template' must name a template file in the targets directory, beside the target file")
        }
        let templatePath = self.directory + "/" + templateName
        let source = String(decoding: try TemplateFile.read(templatePath, target: path), as: UTF8.self)
        let tags = TemplateTags(scanning: source)
        // swift-mustache parses in a time that grows with the square of the tags (4000 tags: 1.6 s, 31,000: a
        // minute, with the applier answering nothing): a template has at most this many.
        guard tags.tags.count <= Self.tagLimit else {
            throw bad(
                "template \(templatePath): it has \(tags.tags.count) tags, more than the \(Self.tagLimit) a template may"
                    + " have (loading one takes time growing with the square of its tags)"
            )
        }
        let template: MustacheTemplate
        do {
            // Configuration files are text: nothing is HTML-escaped.
            template = try MustacheTemplate(string: Self.textContentType + source)
        } catch {
            throw bad("template \(templatePath): \(Self.describe(error, tags: tags))")
        }
        // A partial is looked up in a library the applier does not have: it would render as nothing.
        // `{{*name}}` names no value (a name never starts with `*`): it would print nothing, silently.
        if let star = tags.tags.first(where: { $0.sigil == nil && $0.content.hasPrefix("*") }) {
            throw bad(
                "template \(templatePath): line \(star.line), column \(star.column): '\(star.content)' names no value (a"
                    + " name does not start with '*'; dynamic partials, {{>*name}}, are not supported)"
            )
        }
        if let partial = tags.tags.first(where: { $0.sigil == ">" || $0.sigil == "<" }) {
            throw bad(
                "template \(templatePath): line \(partial.line), column \(partial.column): partial '\(partial.content)':"
                    + " partials are not supported (the applier has no other templates to take them from); write"
                    + " their text into the template itself"
            )
        }

        guard let written = fields["destination"]?.stringValue, written.hasPrefix("/"),
            !written.split(separator: "/").contains("..")
        else { throw bad("'destination' must be an absolute path to a file, without '..'") }
        // A last component of `.` (`/etc/zz/.`) names a directory, as a trailing `/` does.
        guard !written.hasSuffix("/"), written.split(separator: "/").last != "." else {
            throw bad("'destination' \(written) names a directory (it ends in '/' or '/.'): give the file's name")
        }
        guard !written.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else {
            throw bad("'destination' must not contain control characters (a newline, a tab)")
        }
        // One spelling per file (`/etc//x` and `/etc/./x` are `/etc/x`), so that two targets never share one.
        let components = written.split(separator: "/").filter { $0 != "." }
        guard !components.isEmpty else { throw bad("'destination' must be an absolute path to a file, without '..'") }
        let destination = "/" + components.joined(separator: "/")
        let fileName = components[components.count - 1]
        if let long = components.dropLast().first(where: { $0.utf8.count > FileIO.nameLimit }) {
            throw bad(
                "'destination' \(destination): its directory name '\(long)' is \(long.utf8.count) bytes long, more than"
                    + " the \(FileIO.nameLimit) bytes a file name can have"
            )
        }
        // Names with the marker in them are the applier's temporary and previous files, which it removes.
        guard !(fileName.hasPrefix(".") && fileName.contains(".\(FileIO.marker).")) else {
            throw bad(
                "'destination' \(destination): names like .NAME.\(FileIO.marker).* are the applier's own temporary and"
                    + " previous files (it removes them): give another name"
            )
        }
        // Beside the file, the applier writes `.NAME.viper-apply.XXXXXX` and `.NAME.viper-apply.previous`: with a
        // longer name, they could never be created, and the target would fail (and be retried) for ever.
        if fileName.utf8.count > FileIO.longestDestinationName {
            throw bad(
                "'destination' \(destination): its file name is \(fileName.utf8.count) bytes long, and the longest that"
                    + " works is \(FileIO.longestDestinationName) bytes: beside it the applier writes"
                    + " .NAME.\(FileIO.marker).previous, \(FileIO.nameLimit - FileIO.longestDestinationName) bytes"
                    + " longer, and a file name can have at most \(FileIO.nameLimit) bytes"
            )
        }

        let owner = try Self.account(fields["owner"], field: "owner", default: 0, path: path) { name in
            getpwnam(name).map { $0.pointee.pw_uid }
        }
        let group = try Self.account(fields["group"], field: "group", default: 0, path: path) { name in
            getgrnam(name).map { $0.pointee.gr_gid }
        }
        var mode: UInt32 = 0o644
        if let value = fields["mode"] {
            // Only digits: UInt32(_:radix:) also takes "+644".
            guard let text = value.stringValue, (3...4).contains(text.count),
                text.allSatisfy({ "01234567".contains($0) }),
                let parsed = UInt32(text, radix: 8), parsed <= 0o777
            else {
                throw bad(
                    "'mode' must be octal permission bits up to \"0777\" as a string of 3 or 4 octal digits, such as"
                        + " \"0644\" (no setuid, setgid or sticky bit)"
                )
            }
            mode = parsed
        }
        return ApplyTarget(
            name: name,
            source: path,
            description: fields["description"]?.stringValue ?? "",
            reads: reads,
            template: template,
            templateNames: TemplateNames.scan(source),
            printedNames: TemplateNames.printed(source),
            topLevelNames: TemplateNames.topLevel(source),
            transformNames: TemplateNames.transforms(source),
            sectionSize: tags.largestSection ?? source.utf8.count,
            destination: self.root + destination,
            root: self.root,
            owner: owner,
            group: group,
            mode: mode,
            check: try Self.command(fields["check"], field: "check", path: path),
            reload: try Self.command(fields["reload"], field: "reload", path: path)
        )
    }

    /// `path` with its directory's symbolic links resolved, when the directory exists.
    static func canonical(_ path: String) -> String {
        let directory = FileIO.directory(of: path)
        guard let resolved = realpath(directory, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved) + "/" + path[path.index(after: path.lastIndex(of: "/")!)...]
    }

    /// The most tags a template may have.
    static let tagLimit = 2000

    /// Makes every template text, not HTML: nothing is escaped.
    static let textContentType = "{{% CONTENT_TYPE: TEXT}}"

    /// A template's parse error in words, with its line and column; `unclosed` is the tag the template ends in,
    /// which swift-mustache reports as an "overflow" where the template ends.
    static func describe(_ error: any Error, tags: TemplateTags? = nil) -> String {
        guard let parse = error as? MustacheTemplate.ParserError else { return "\(error)" }
        if "\(parse.error)" == "overflow" {
            guard let unclosed = tags?.unclosed else {
                return "the template ends inside a tag: its closing delimiter is missing"
            }
            return "unclosed tag '\(unclosed.opening)' opened at line \(unclosed.line), column \(unclosed.column):"
                + " its '\(unclosed.closing)' is missing"
        }
        // Where the section is opened, and with which name, said from the tags read (the parser says only where it
        // gave up: the end of the template, or the closing tag).
        if let tags, let sections = Self.sectionMismatch(in: tags.tags) {
            switch (parse.error as? MustacheTemplate.Error, sections) {
            case (.expectedSectionEnd?, (let open?, nil)):
                return "line \(open.line), column \(open.column): the section '\(open.content)' opened here is not"
                    + " closed: its {{/\(open.content)}} is missing"
            case (.sectionCloseNameIncorrect?, (let open?, let close?)):
                return "line \(close.line), column \(close.column): {{/\(close.content)}} closes the section"
                    + " '\(open.content)' opened at line \(open.line), column \(open.column): close it with"
                    + " {{/\(open.content)}}"
            default: break
            }
        }
        let line = parse.context.lineNumber
        // The content type is prefixed to the first line.
        let column = line == 1 ? parse.context.columnNumber - Self.textContentType.count : parse.context.columnNumber
        let reason =
            switch parse.error as? MustacheTemplate.Error {
            case .sectionCloseNameIncorrect: "a section is closed with another name than it was opened with"
            case .unfinishedName: "a tag is not finished (its '}}' is missing, or its name is empty)"
            case .expectedSectionEnd: "a section is not closed: its {{/NAME}} is missing"
            case .invalidSetDelimiter: "a set-delimiter tag is malformed"
            default: "\(parse.error)"
            }
        return "line \(line), column \(max(column, 1)): \(reason)"
    }

    /// The first section whose end does not match: the section open and the end tag that names another (both), or
    /// the section left open at the end (no end tag); `nil` when the sections pair up.
    private static func sectionMismatch(
        in tags: [TemplateTags.Tag]
    ) -> (open: TemplateTags.Tag?, close: TemplateTags.Tag?)? {
        var open: [TemplateTags.Tag] = []
        for tag in tags {
            switch tag.sigil {
            case "#", "^", "$", "<": open.append(tag)
            case "/":
                guard let last = open.popLast() else { return (nil, tag) }
                if last.content != tag.content { return (last, tag) }
            default: break
            }
        }
        return open.last.map { ($0, nil) }
    }

    /// Whether `value` holds a string with a NUL character, at any depth.
    private static func containsNUL(_ value: JSONValue) -> Bool {
        switch value {
        case .string(let text): text.utf8.contains(0)
        case .array(let items): items.contains(where: Self.containsNUL)
        case .object(let members): members.contains { $0.key.utf8.contains(0) || Self.containsNUL($0.value) }
        default: false
        }
    }

    private static func command(_ value: JSONValue?, field: String, path: String) throws(ApplyError) -> [String]? {
        guard let value else { return nil }
        guard let words = value.arrayValue?.compactMap(\.stringValue), !words.isEmpty,
            words.count == value.arrayValue?.count, !words[0].isEmpty
        else {
            throw .badTarget(file: path, reason: "'\(field)' must be a command: a list of words, the program first")
        }
        return words
    }

    private static func account(
        _ value: JSONValue?,
        field: String,
        default fallback: UInt32,
        path: String,
        lookup: (String) -> UInt32?
    ) throws(ApplyError) -> UInt32 {
        guard let value else { return fallback }
        // 4294967295 is -1 to chown(2): "leave it as it is", not an id.
        if let number = value.intValue, let id = UInt32(exactly: number), id != .max { return id }
        if let name = value.stringValue {
            let kind = field == "owner" ? "user" : "group"
            guard !name.isEmpty else {
                throw .badTarget(
                    file: path,
                    reason: "'\(field)' is empty: give a \(kind) name or number, or leave the field out for root"
                )
            }
            if let id = UInt32(name), id != .max { return id }
            if let id = lookup(name) { return id }
            throw .badTarget(file: path, reason: "'\(field)' names '\(name)', which this host does not have")
        }
        throw .badTarget(file: path, reason: "'\(field)' must be a name or a number")
    }
}

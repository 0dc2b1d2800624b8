import Glibc
public import SettingsAPI
import ViperPOSIX

/// What the applier keeps on disk between runs (`state.json` in its state directory): where it is in the daemon's
/// Watch stream, the values it rendered from, and each target's last outcome.
public struct ApplyState: Sendable, Codable, Equatable {
    /// The Watch cursor after the last change applied.
    public var cursor: String?
    /// Effective values by key, as of `cursor`.
    public var values: [String: JSONValue]
    /// The revision of each value (of the change that set it), by key.
    public var revisions: [String: Int64]
    /// Each target's last outcome, by target name.
    public var outcomes: [String: TargetOutcomeViewModel]
    /// The files the applier wrote (or found holding what their target renders), by destination (the root
    /// prefixed, as the target names it): kept while a loaded target names the destination, and afterwards while the
    /// file is there, so that a file no target writes any more (its target removed, or given another destination)
    /// is reported until it is removed or a target writes it again.
    public var written: [String: WrittenFile]

    public init(
        cursor: String? = nil,
        values: [String: JSONValue] = [:],
        revisions: [String: Int64] = [:],
        outcomes: [String: TargetOutcomeViewModel] = [:],
        written: [String: WrittenFile] = [:]
    ) {
        self.cursor = cursor
        self.values = values
        self.revisions = revisions
        self.outcomes = outcomes
        self.written = written
    }

    /// A state written before `written` was kept takes it from the outcomes: the destination each target last wrote
    /// or found up to date (its root unknown: the destination has it prefixed already).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.cursor = try container.decodeIfPresent(String.self, forKey: .cursor)
        self.values = try container.decode([String: JSONValue].self, forKey: .values)
        self.revisions = try container.decode([String: Int64].self, forKey: .revisions)
        self.outcomes = try container.decode([String: TargetOutcomeViewModel].self, forKey: .outcomes)
        if let written = try container.decodeIfPresent([String: WrittenFile].self, forKey: .written) {
            self.written = written
        } else {
            self.written = [:]
            for outcome in self.outcomes.values.sorted(by: { $0.target < $1.target })
            where [ApplyOutcome.Result.written.rawValue, ApplyOutcome.Result.unchanged.rawValue].contains(
                outcome.result
            ) {
                self.written[outcome.destination] = WrittenFile(target: outcome.target, root: "")
            }
        }
    }
}

/// A file the applier wrote: the target it was last written for, and the root (`--root`) it is under.
public struct WrittenFile: Sendable, Codable, Equatable {
    /// The name of the target that last wrote it (or found it holding what it renders).
    public var target: String
    /// The root (`--root`) its destination is under, empty for the host: a symbolic link below it is not followed
    /// when the file is looked for.
    public var root: String

    public init(target: String, root: String) {
        self.target = target
        self.root = root
    }
}

/// Reads and writes ``ApplyState`` durably: a temporary file, fsync, rename, directory fsync. Never through a
/// symbolic link (the applier runs as root, and whoever can write its state directory could otherwise make it read a
/// file of root's, or move it): a link at ``path`` is refused, whatever it points to, neither read, moved aside nor
/// replaced.
public struct ApplyStateStore: Sendable {
    public var path: String

    public init(path: String) {
        self.path = path
    }

    /// The saved state; an empty one when there is none. A corrupt file is moved aside to `state.json.corrupt`
    /// (kept for a look) and is an error: the caller starts afresh, renders every target, and says so. A symbolic
    /// link is an error too, and is left where it is.
    public func load() throws(ApplyError) -> ApplyState {
        let bytes: [UInt8]
        do {
            guard let read = try RegularFile.contents(of: self.path, followingLinks: false) else { return ApplyState() }
            bytes = read
        } catch {
            if case .system("open", ELOOP) = error, let link = self.linkError(starting: true) { throw link }
            let reason =
                switch error {
                case .system(_, let code): SystemErrorText.describe(code)
                case .notRegularFile: error.description
                }
            throw .file(path: self.path, operation: "read", reason: reason)
        }
        do {
            return try JSONValueDecoder().decode(ApplyState.self, from: JSONValue(parsing: bytes))
        } catch {
            let aside = self.path + ".corrupt"
            // Not a link put in its place since it was read: that would be moved, not the file read.
            let moved = !Self.isSymbolicLink(self.path) && rename(self.path, aside) == 0
            throw .state(
                path: self.path,
                reason: "unreadable (\(error))\(moved ? ", moved to \(aside)" : ""); starting afresh"
            )
        }
    }

    public func save(_ state: ApplyState) throws(ApplyError) {
        let value: JSONValue
        do {
            value = try JSONValueEncoder().encode(state)
        } catch {
            throw .state(path: self.path, reason: "cannot encode: \(error)")
        }
        var bytes: [UInt8] = []
        value.write(into: &bytes)
        bytes.append(UInt8(ascii: "\n"))
        try FileIO.writeAtomically(bytes, to: self.path, mode: 0o600) { () -> ApplyError in
            self.linkError(starting: false) ?? .state(path: self.path, reason: "is a symbolic link")
        }
    }

    /// The error of a symbolic link at ``path``; `nil` when there is none.
    private func linkError(starting: Bool) -> ApplyError? {
        guard Self.isSymbolicLink(self.path) else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(self.path, &buffer, buffer.count - 1)
        let target =
            count >= 0
            ? " (to \(String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)))" : ""
        return .state(
            path: self.path,
            reason: """
                is a symbolic link\(target); the applier neither reads nor writes its state through a link: remove \
                it\(starting ? " (until then, it starts afresh and keeps no state)" : " (the state is not kept)")
                """
        )
    }

    private static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }
}

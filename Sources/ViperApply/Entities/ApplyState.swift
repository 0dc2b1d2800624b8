import Glibc
public import SettingsAPI

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

    public init(
        cursor: String? = nil,
        values: [String: JSONValue] = [:],
        revisions: [String: Int64] = [:],
        outcomes: [String: TargetOutcomeViewModel] = [:]
    ) {
        self.cursor = cursor
        self.values = values
        self.revisions = revisions
        self.outcomes = outcomes
    }
}

/// Reads and writes ``ApplyState`` durably: a temporary file, fsync, rename, directory fsync.
public struct ApplyStateStore: Sendable {
    public var path: String

    public init(path: String) {
        self.path = path
    }

    /// The saved state; an empty one when there is none. A corrupt file is moved aside to `state.json.corrupt`
    /// (kept for a look) and is an error: the caller starts afresh, renders every target, and says so.
    public func load() throws(ApplyError) -> ApplyState {
        guard let bytes = try FileIO.read(self.path) else { return ApplyState() }
        do {
            return try JSONValueDecoder().decode(ApplyState.self, from: JSONValue(parsing: bytes))
        } catch {
            let aside = self.path + ".corrupt"
            let moved = rename(self.path, aside) == 0
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
        try FileIO.writeAtomically(bytes, to: self.path, mode: 0o600)
    }
}

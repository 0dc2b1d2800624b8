import SettingsAPI
public import ViperSettings

/// The values under the prefix as the source last saw them, kept up to date by range reads and watch events,
/// and turned into a ``RemoteSnapshot``.
///
/// Keys are `PREFIX/MODULE/recommended/SECTION.ITEM` and `PREFIX/MODULE/mandatory/SECTION.ITEM`, values JSON;
/// anything else under the prefix is skipped with a reason (``rejected``), which the snapshot carries so that
/// `settingsctl status` lists it. A key whose value is not JSON sets no value: the value it held before is dropped
/// too, as etcd holds it no more.
public struct EtcdKeySpace: Sendable, Equatable {
    /// One key that fits the layout.
    private struct Entry: Sendable, Equatable {
        var module: String
        var mandatory: Bool
        var item: String
        var value: JSONValue
    }

    /// The key prefix, without the trailing slash.
    public let prefix: String
    /// The etcd revision the contents reflect.
    public private(set) var revision: Int64 = 0
    private var entries: [String: Entry] = [:]
    /// Keys under the prefix that were skipped, with the reason, by full key.
    public private(set) var rejected: [String: String] = [:]

    /// Creates an empty key space for `prefix`.
    public init(prefix: String) {
        self.prefix = prefix
    }

    /// Replaces everything with a range read at `revision`; returns the keys it skipped, as `key: reason`.
    @discardableResult
    public mutating func replaceAll(with pairs: [(key: [UInt8], value: [UInt8])], revision: Int64) -> [String] {
        self.entries = [:]
        self.rejected = [:]
        self.revision = revision
        var skipped: [String] = []
        for pair in pairs {
            if let reason = self.put(key: pair.key, value: pair.value) {
                skipped.append(reason)
            }
        }
        return skipped
    }

    /// Stores `value` at `key`; returns `key: reason` when the key was skipped. A skipped key sets no value: what
    /// it held before is dropped.
    @discardableResult
    public mutating func put(key: [UInt8], value: [UInt8]) -> String? {
        let name = String(decoding: key, as: UTF8.self)
        self.rejected[name] = nil
        switch self.parse(key: key, name: name, value: value) {
        case .success(let entry):
            self.entries[name] = entry
            return nil
        case .failure(let error):
            self.entries[name] = nil
            self.rejected[name] = error.message
            return "\(name): \(error.message)"
        }
    }

    /// Removes `key`.
    public mutating func delete(key: [UInt8]) {
        let name = String(decoding: key, as: UTF8.self)
        self.entries[name] = nil
        self.rejected[name] = nil
    }

    /// Records that the contents now reflect `revision`.
    public mutating func advance(to revision: Int64) {
        self.revision = max(self.revision, revision)
    }

    /// The contents as a snapshot whose revision is the etcd revision.
    public var snapshot: RemoteSnapshot {
        var modules: [String: RemoteModuleValues] = [:]
        for entry in self.entries.values {
            if entry.mandatory {
                modules[entry.module, default: RemoteModuleValues()].mandatory[entry.item] = entry.value
            } else {
                modules[entry.module, default: RemoteModuleValues()].recommended[entry.item] = entry.value
            }
        }
        let rejected = self.rejected.map { key, reason in
            // A key of the layout whose value is refused is told as the setting it is for (explain finds it there),
            // the etcd key in the reason.
            guard let (module, item, layer) = self.layout(of: key) else {
                return RemoteRejection(module: self.module(of: key), key: key, reason: reason)
            }
            return RemoteRejection(module: module, key: "\(module).\(item)", reason: "\(key): \(reason)", layer: layer)
        }
        return RemoteSnapshot(revision: String(self.revision), modules: modules, rejected: rejected.sorted())
    }

    /// The module, `SECTION.ITEM` and layer a key of the layout (`PREFIX/MODULE/LAYER/SECTION.ITEM`) names; `nil` for
    /// any other key.
    private func layout(of key: String) -> (module: String, item: String, layer: LayerName)? {
        let head = self.prefix + "/"
        guard key.hasPrefix(head) else { return nil }
        let parts = key.dropFirst(head.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[2].split(separator: ".").count == 2,
            let layer = LayerName(rawValue: String(parts[1])), layer == .recommended || layer == .mandatory
        else { return nil }
        return (String(parts[0]), String(parts[2]), layer)
    }

    /// The module a key under the prefix names (its first component), empty for a key outside the prefix.
    private func module(of key: String) -> String {
        let head = self.prefix + "/"
        guard key.hasPrefix(head) else { return "" }
        return String(key.dropFirst(head.count).prefix { $0 != "/" })
    }

    /// Checks one key against the layout and parses its value.
    private func parse(key: [UInt8], name: String, value: [UInt8]) -> Result<Entry, RemoteSyncError> {
        guard String(validating: key, as: UTF8.self) != nil else {
            return .failure(RemoteSyncError.attempt("the key is not UTF-8"))
        }
        let head = self.prefix + "/"
        guard name.hasPrefix(head) else { return .failure(RemoteSyncError.attempt("the key is outside the prefix")) }
        let parts = name.dropFirst(head.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            return .failure(RemoteSyncError.attempt("expected PREFIX/MODULE/recommended|mandatory/SECTION.ITEM"))
        }
        let module = parts[0]
        let layer = parts[1]
        let item = parts[2]
        guard !module.isEmpty else { return .failure(RemoteSyncError.attempt("the module name is empty")) }
        guard layer == "recommended" || layer == "mandatory" else {
            return .failure(RemoteSyncError.attempt("the layer '\(layer)' is neither 'recommended' nor 'mandatory'"))
        }
        let pieces = item.split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.count == 2, !pieces[0].isEmpty, !pieces[1].isEmpty else {
            return .failure(RemoteSyncError.attempt("'\(item)' is not SECTION.ITEM"))
        }
        let parsed: JSONValue
        do {
            parsed = try JSONValue(parsing: value)
        } catch {
            return .failure(
                RemoteSyncError.attempt("the value is not JSON (\(error)); the key sets no value until it holds JSON")
            )
        }
        return .success(
            Entry(module: String(module), mandatory: layer == "mandatory", item: String(item), value: parsed)
        )
    }
}

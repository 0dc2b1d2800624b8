public import Logging
import SettingsAPI
import Synchronization

/// Applies what a remote source says to the remote layers of every module: each value is checked against its
/// schema and rejected alone (the last known good value of that key stays), effective changes bump the module's
/// revision and are audited with `SOURCE=remote`.
public final class RemoteSyncInteractor: Sendable {
    private let schemas: @Sendable () -> [ModuleSchema]
    private let repository: any SettingsRepository
    private let status: SyncStatusRecorder
    private let logger: Logger
    private let changes = Mutex<(sequence: Int, keys: [(Int, String)])>((0, []))

    /// Creates the interactor over the schemas served now (they change on reload).
    public init(
        schemas: @escaping @Sendable () -> [ModuleSchema],
        repository: any SettingsRepository,
        status: SyncStatusRecorder,
        logger: Logger
    ) {
        self.schemas = schemas
        self.repository = repository
        self.status = status
        self.logger = logger
    }

    /// A mark to ask later which keys changed after it.
    public func mark() -> Int { self.changes.withLock { $0.sequence } }

    /// The keys whose effective value changed after `mark`, in order, without repeats.
    public func changedKeys(since mark: Int) -> [String] {
        var seen: Set<String> = []
        return self.changes.withLock { $0.keys }.filter { $0.0 > mark && seen.insert($0.1).inserted }.map(\.1)
    }

    /// Applies a snapshot to every module served; modules the snapshot does not name lose their remote values.
    public func apply(_ snapshot: RemoteSnapshot) async {
        var rejected: [String] = []
        let schemas = self.schemas()
        let known = Set(schemas.map(\.name))
        for module in snapshot.modules.keys.sorted() where !known.contains(module) {
            rejected.append("\(module): no such module")
        }
        for schema in schemas {
            let raw = snapshot.modules[schema.name] ?? RemoteModuleValues()
            do {
                rejected += try await self.apply(raw, to: schema)
            } catch {
                self.logger.error(
                    "could not store remote values",
                    metadata: ["module": "\(schema.name)", "error": "\(error)"]
                )
                rejected.append("\(schema.name): not stored: \(error)")
            }
        }
        for entry in rejected {
            self.logger.warning("remote value rejected: \(entry)", metadata: ["revision": "\(snapshot.revision)"])
        }
        self.status.rejected(rejected)
    }

    private func apply(_ raw: RemoteModuleValues, to schema: ModuleSchema) async throws -> [String] {
        var rejected: [String] = []
        func checked(_ values: [String: JSONValue], layer: String) -> [String: SettingValue?] {
            var result: [String: SettingValue?] = [:]
            for (path, json) in values {
                guard let item = schema.item(at: path) else {
                    rejected.append("\(schema.name).\(path): no such key (\(layer))")
                    continue
                }
                do {
                    result[path] = try item.type.value(fromJSON: json)
                } catch {
                    rejected.append("\(schema.name).\(path): \(error.reason) (\(layer))")
                    result[path] = .some(nil)  // keep the last known good value of this key
                }
            }
            return result
        }
        let recommended = checked(raw.recommended, layer: "recommended")
        let mandatory = checked(raw.mandatory, layer: "mandatory")
        let (before, after) = try await self.repository.updateRemote(module: schema.name) { state in
            func merged(_ incoming: [String: SettingValue?], previous: [String: SettingValue]) -> [String: SettingValue]
            {
                var result: [String: SettingValue] = [:]
                for (path, value) in incoming {
                    if let value { result[path] = value } else if let kept = previous[path] { result[path] = kept }
                }
                return result
            }
            let nextRecommended = merged(recommended, previous: state.recommended)
            let nextMandatory = merged(mandatory, previous: state.mandatory)
            guard nextRecommended != state.recommended || nextMandatory != state.mandatory else { return nil }
            var next = state
            next.recommended = nextRecommended
            next.mandatory = nextMandatory
            let effectiveChanged = Self.resolved(schema, state) != Self.resolved(schema, next)
            return RemoteChange(
                recommended: nextRecommended,
                mandatory: nextMandatory,
                revision: state.revision + (effectiveChanged ? 1 : 0)
            )
        }
        self.audit(schema: schema, before: before, after: after)
        return rejected
    }

    private static func resolved(_ schema: ModuleSchema, _ state: ModuleState) -> [ResolvedSetting] {
        schema.sections.flatMap { section in
            section.items.map { ResolvedSetting(module: schema.name, sectionID: section.id, item: $0, state: state) }
        }
    }

    private func audit(schema: ModuleSchema, before: ModuleState, after: ModuleState) {
        guard before != after else { return }
        for (old, new) in zip(Self.resolved(schema, before), Self.resolved(schema, after)) where old != new {
            if old.value != new.value {
                self.changes.withLock {
                    $0.sequence += 1
                    $0.keys.append(($0.sequence, new.key.description))
                    if $0.keys.count > 10_000 { $0.keys.removeFirst($0.keys.count - 10_000) }
                }
            }
            self.logger.notice(
                "\(new.key) changed from \(old.value.logText()) to \(new.value.logText())",
                metadata: [
                    "module": "\(schema.name)",
                    "key": "\(new.key)",
                    "old_value": "\(old.value.logText())",
                    "new_value": "\(new.value.logText())",
                    "layer": "\(new.winner.rawValue)",
                    "locked": "\(new.isLocked)",
                    "source": "remote",
                ]
            )
        }
    }
}

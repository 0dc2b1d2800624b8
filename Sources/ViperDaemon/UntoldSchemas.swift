import Synchronization
import ViperSettings

/// The schema each module's watchers were last told of, for the modules whose schema change could not be recorded
/// (the disk failed at a reload or at start). The next reload compares the schema it serves with the one told, not
/// with the one served before it, and the copy kept for the next start stays the one told: the change is recorded
/// once the disk works again, at the next reload or start, instead of being lost.
final class UntoldSchemas: Sendable {
    /// What a module's watchers were last told of: its schema (`nil` when that schema is not known: its kept copy
    /// could not be read) and the bytes of its kept copy (`nil` when none is to be kept).
    private struct Told: Sendable {
        let schema: ModuleSchema?
        let source: [UInt8]?
    }

    private let told = Mutex<[String: Told]>([:])

    /// The schemas to compare a reload with: `served` (those served before it) with the schema told in place of each
    /// module not told of its change, and the modules whose schema told is not known.
    func baseline(_ served: [ModuleSchema]) -> (previous: [ModuleSchema], unknown: Set<String>) {
        let told = self.told.withLock { $0 }
        guard !told.isEmpty else { return (served, []) }
        let names = Set(served.map(\.name))
        var previous = served.compactMap { schema in told[schema.name].map(\.schema) ?? schema }
        for (name, entry) in told.sorted(by: { $0.key < $1.key }) where !names.contains(name) {
            if let schema = entry.schema { previous.append(schema) }
        }
        let unknown = Set(told.compactMap { $0.value.schema == nil ? $0.key : nil })
        return (previous, unknown)
    }

    /// Takes the outcome of a comparison with `previous` and `unknown` (as ``baseline(_:)`` gives them): the modules
    /// in `untold` keep what they were told before, or now get `previous`'s schema and `sources`' bytes (the kept
    /// copies, or the schema files served before); the others were told.
    func update(untold: Set<String>, previous: [ModuleSchema], unknown: Set<String>, sources: [String: [UInt8]]) {
        let before = Dictionary(previous.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.told.withLock { told in
            for name in Array(told.keys) where !untold.contains(name) { told[name] = nil }
            for name in untold where told[name] == nil {
                let schema = unknown.contains(name) ? nil : (before[name] ?? .empty(named: name))
                told[name] = Told(schema: schema, source: sources[name])
            }
        }
    }

    /// The schema files to keep for the next start: `current` (those served), with the copy told of in place of
    /// each module not told of its change.
    func sourcesToKeep(_ current: [String: [UInt8]]) -> [String: [UInt8]] {
        var sources = current
        for (name, entry) in self.told.withLock({ $0 }) { sources[name] = entry.source }
        return sources
    }
}

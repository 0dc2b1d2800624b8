public import ViperSettings

/// The behaviour every ``SettingsRepository`` implementation shares, as checks a test target runs against it.
///
/// Each check makes a fresh repository with `makeRepository` and throws a ``ConformanceFailure`` describing the first
/// expectation that does not hold. Run each from its own test, so failures are named:
///
/// ```swift
/// let suite = RepositoryConformance(makeRepository: { InMemorySettingsRepository() })
///
/// @Test("an update applies its change")
/// func updateAppliesChange() async throws { try await suite.checkUpdateAppliesChange() }
/// ```
///
/// Durable implementations pass `reopen`, which releases a repository and creates a new one over the same storage
/// (for files: the same directory); the checks that need it do nothing without it.
public struct RepositoryConformance: Sendable {
    /// Makes a repository over fresh, empty storage.
    public var makeRepository: @Sendable () async throws -> any SettingsRepository
    /// Releases a repository (closing it, or just dropping it to mimic a crash) and opens its storage anew.
    public var reopen: (@Sendable (any SettingsRepository) async throws -> any SettingsRepository)?
    /// How many sequential updates ``checkStateSurvivesCompaction()`` makes: more than the implementation's
    /// compaction threshold, so that compaction happens at least once.
    public var manyUpdates: Int

    /// Creates the suite.
    ///
    /// - Parameters:
    ///   - manyUpdates: Updates made before reopening in ``checkStateSurvivesCompaction()``.
    ///   - makeRepository: Makes a repository over fresh, empty storage.
    ///   - reopen: Releases a repository and opens its storage anew; `nil` for a repository without storage.
    public init(
        manyUpdates: Int = 250,
        makeRepository: @escaping @Sendable () async throws -> any SettingsRepository,
        reopen: (@Sendable (any SettingsRepository) async throws -> any SettingsRepository)? = nil
    ) {
        self.manyUpdates = manyUpdates
        self.makeRepository = makeRepository
        self.reopen = reopen
    }

    /// Runs every check, stopping at the first failure.
    public func run() async throws {
        try await self.checkEmptyModuleIsEmpty()
        try await self.checkUpdateAppliesChange()
        try await self.checkNilDecisionChangesNothing()
        try await self.checkDecideErrorPropagates()
        try await self.checkModulesAreIndependent()
        try await self.checkConcurrentUpdatesAreAtomic()
        try await self.checkValuesRoundTrip()
        try await self.checkStateSurvivesReopen()
        try await self.checkStateSurvivesCompaction()
        try await self.checkRemoteUpdateReplacesLayers()
        try await self.checkNilRemoteDecisionChangesNothing()
        try await self.checkLocalAndRemoteUpdatesInterleave()
        try await self.checkRevisionSurvivesReopenWhicheverKindIsLatest()
        try await self.checkRemoteRevisionIsStored()
        try await self.checkWriteRefusalWritesNothing()
    }

    /// A module whose storage works is not refused a write (``SettingsRepository/writeRefusal(of:)`` is `nil`), before
    /// and after its first write, and asking writes nothing.
    public func checkWriteRefusalWritesNothing() async throws {
        let repository = try await self.makeRepository()
        let refusal = await repository.writeRefusal(of: "network")
        try expect(refusal == nil, "writeRefusal(of:) of a new module is \(String(describing: refusal)), expected nil")
        try expect(try await repository.state(of: "network") == .empty, "writeRefusal(of:) changed the module")
        _ = try await repository.update(module: "network") { _ in
            LocalChange(set: ["proxy.port": .int(8080)], revision: 1)
        }
        let after = await repository.writeRefusal(of: "network")
        try expect(after == nil, "writeRefusal(of:) after a write is \(String(describing: after)), expected nil")
        try expect(try await repository.state(of: "network").revision == 1, "writeRefusal(of:) changed the module")
    }

    /// A module nothing was stored for is ``ModuleState/empty``, and `decide` sees it so.
    public func checkEmptyModuleIsEmpty() async throws {
        let repository = try await self.makeRepository()
        try expect(try await repository.state(of: "network") == .empty, "state(of:) of a new module is not empty")
        let seen = try await repository.update(module: "network") { _ in nil }
        try expect(seen.before == .empty, "decide of a new module saw \(seen.before), expected an empty state")
    }

    /// An update applies its sets and removals and the revision, returns the states before and after, and the
    /// next read and the next `decide` see the new state.
    public func checkUpdateAppliesChange() async throws {
        let repository = try await self.makeRepository()
        let first = try await repository.update(module: "network") { _ in
            LocalChange(set: ["proxy.port": .int(8080), "proxy.mode": .string("manual")], revision: 1)
        }
        let expectedFirst = ModuleState(
            revision: 1,
            local: ["proxy.port": .int(8080), "proxy.mode": .string("manual")]
        )
        try expect(first.before == .empty, "the first update's before is \(first.before), expected empty")
        try expect(
            first.after == expectedFirst,
            "the first update's after is \(first.after), expected \(expectedFirst)"
        )
        let second = try await repository.update(module: "network") { state in
            LocalChange(set: ["proxy.port": .int(3128)], remove: ["proxy.mode"], revision: state.revision + 1)
        }
        let expectedSecond = ModuleState(revision: 2, local: ["proxy.port": .int(3128)])
        try expect(
            second.before == expectedFirst,
            "the second update's before is \(second.before), expected the first's after"
        )
        try expect(
            second.after == expectedSecond,
            "the second update's after is \(second.after), expected \(expectedSecond)"
        )
        let stored = try await repository.state(of: "network")
        try expect(stored == expectedSecond, "state(of:) after two updates is \(stored), expected \(expectedSecond)")
        let removal = try await repository.update(module: "network") { state in
            LocalChange(remove: ["proxy.port", "proxy.never-set"], revision: state.revision + 1)
        }
        try expect(removal.after == ModuleState(revision: 3), "removing every key left \(removal.after)")
    }

    /// A `decide` returning `nil` changes nothing: before equals after, and the state is as it was.
    public func checkNilDecisionChangesNothing() async throws {
        let repository = try await self.makeRepository()
        let stored = try await repository.update(module: "network") { _ in
            LocalChange(set: ["proxy.port": .int(8080)], revision: 5)
        }
        let result = try await repository.update(module: "network") { _ in nil }
        try expect(result.before == stored.after, "a nil decision saw \(result.before), expected \(stored.after)")
        try expect(
            result.after == result.before,
            "a nil decision returned after \(result.after) != before \(result.before)"
        )
        let state = try await repository.state(of: "network")
        try expect(state == stored.after, "a nil decision changed the state to \(state)")
    }

    /// An error thrown by `decide` is rethrown unchanged, and nothing is stored.
    public func checkDecideErrorPropagates() async throws {
        let repository = try await self.makeRepository()
        let stored = try await repository.update(module: "network") { _ in
            LocalChange(set: ["proxy.port": .int(8080)], revision: 1)
        }
        do {
            _ = try await repository.update(module: "network") { _ in throw DecisionError(token: 42) }
            throw ConformanceFailure("update returned although decide threw")
        } catch let error as DecisionError {
            try expect(error == DecisionError(token: 42), "decide's error came back changed: \(error)")
        } catch let error as ConformanceFailure {
            throw error
        } catch {
            throw ConformanceFailure("decide threw DecisionError, update threw \(type(of: error)): \(error)")
        }
        let state = try await repository.state(of: "network")
        try expect(state == stored.after, "a throwing decide changed the state to \(state)")
        let next = try await repository.update(module: "network") { state in
            LocalChange(set: ["proxy.mode": .string("auto")], revision: state.revision + 1)
        }
        try expect(next.before == stored.after, "after a throwing decide, the next decide saw \(next.before)")
    }

    /// Updating one module leaves the others as they were.
    public func checkModulesAreIndependent() async throws {
        let repository = try await self.makeRepository()
        _ = try await repository.update(module: "network") { _ in
            LocalChange(set: ["proxy.port": .int(8080)], revision: 3)
        }
        _ = try await repository.update(module: "display") { _ in
            LocalChange(set: ["proxy.port": .string("not the network's")], revision: 1)
        }
        let network = try await repository.state(of: "network")
        let display = try await repository.state(of: "display")
        let other = try await repository.state(of: "updates")
        try expect(network == ModuleState(revision: 3, local: ["proxy.port": .int(8080)]), "network is \(network)")
        try expect(
            display == ModuleState(revision: 1, local: ["proxy.port": .string("not the network's")]),
            "display is \(display)"
        )
        try expect(other == .empty, "a module never updated is \(other)")
    }

    /// 100 concurrent updates of one module, each adding 1 to the revision it saw, end at revision 100: the read,
    /// the decision and the write are atomic.
    public func checkConcurrentUpdatesAreAtomic() async throws {
        let repository = try await self.makeRepository()
        let count = 100
        let revisions = try await withThrowingTaskGroup(of: Int64.self) { group in
            for index in 0..<count {
                group.addTask {
                    let result = try await repository.update(module: "counter") { state in
                        let next = state.revision + 1
                        return LocalChange(
                            set: ["count.value": .int(next), "writer.t\(index)": .int(next)],
                            revision: next
                        )
                    }
                    return result.after.revision
                }
            }
            var revisions: [Int64] = []
            for try await revision in group { revisions.append(revision) }
            return revisions
        }
        try expect(
            revisions.sorted() == Array(1...Int64(count)),
            "the updates returned revisions \(revisions.sorted())"
        )
        let state = try await repository.state(of: "counter")
        try expect(
            state.revision == Int64(count),
            "after \(count) concurrent increments the revision is \(state.revision)"
        )
        try expect(
            state.local["count.value"] == .int(Int64(count)),
            "count.value is \(String(describing: state.local["count.value"]))"
        )
        try expect(state.local.count == count + 1, "\(state.local.count) keys stored, expected \(count + 1)")
    }
}

/// The error the checks make `decide` throw.
private struct DecisionError: Error, Equatable {
    var token: Int
}

/// Throws a ``ConformanceFailure`` with `message` unless `condition` holds.
func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws(ConformanceFailure) {
    if !condition { throw ConformanceFailure(message()) }
}

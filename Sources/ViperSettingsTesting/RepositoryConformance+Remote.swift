import ViperSettings

/// The checks of ``SettingsRepository/updateRemote(module:_:)``: the remote layers and the revision they share with
/// local changes.
extension RepositoryConformance {
    /// A remote update replaces both remote layers and the revision, leaves the local layer alone, returns the states
    /// before and after, and the next read and the next `decide` (of either kind) see the new state.
    public func checkRemoteUpdateReplacesLayers() async throws {
        let repository = try await self.makeRepository()
        let local = try await repository.update(module: "network") { _ in
            LocalChange(set: ["proxy.port": .int(3128)], revision: 1)
        }
        let first = try await repository.updateRemote(module: "network") { state in
            RemoteChange(
                recommended: ["proxy.mode": .string("auto"), "proxy.host": .string("proxy.example")],
                mandatory: ["proxy.port": .int(8080)],
                revision: state.revision + 1
            )
        }
        let expectedFirst = ModuleState(
            revision: 2,
            local: ["proxy.port": .int(3128)],
            recommended: ["proxy.mode": .string("auto"), "proxy.host": .string("proxy.example")],
            mandatory: ["proxy.port": .int(8080)]
        )
        try expect(
            first.before == local.after,
            "the remote update's before is \(first.before), expected \(local.after)"
        )
        try expect(
            first.after == expectedFirst,
            "the remote update's after is \(first.after), expected \(expectedFirst)"
        )
        let second = try await repository.updateRemote(module: "network") { state in
            RemoteChange(recommended: ["proxy.mode": .string("manual")], mandatory: [:], revision: state.revision + 1)
        }
        let expectedSecond = ModuleState(
            revision: 3,
            local: ["proxy.port": .int(3128)],
            recommended: ["proxy.mode": .string("manual")]
        )
        try expect(second.before == expectedFirst, "the second remote update saw \(second.before)")
        try expect(
            second.after == expectedSecond,
            "a remote update does not replace the layers whole: \(second.after), expected \(expectedSecond)"
        )
        let stored = try await repository.state(of: "network")
        try expect(stored == expectedSecond, "state(of:) after remote updates is \(stored), expected \(expectedSecond)")
        let next = try await repository.update(module: "network") { state in
            LocalChange(set: ["proxy.host": .string("local.example")], revision: state.revision + 1)
        }
        try expect(next.before == expectedSecond, "a local decide after a remote update saw \(next.before)")
        try expect(
            next.after.recommended == expectedSecond.recommended && next.after.mandatory == expectedSecond.mandatory,
            "a local update changed the remote layers to \(next.after)"
        )
    }

    /// A remote `decide` returning `nil` changes nothing; an error it throws is rethrown unchanged and changes
    /// nothing.
    public func checkNilRemoteDecisionChangesNothing() async throws {
        let repository = try await self.makeRepository()
        let empty = try await repository.updateRemote(module: "network") { _ in nil }
        try expect(empty.before == .empty && empty.after == .empty, "a nil remote decision of a new module: \(empty)")
        try expect(try await repository.state(of: "network") == .empty, "a nil remote decision stored something")
        let stored = try await repository.updateRemote(module: "network") { _ in
            RemoteChange(recommended: ["proxy.mode": .string("auto")], mandatory: [:], revision: 4)
        }
        let result = try await repository.updateRemote(module: "network") { _ in nil }
        try expect(
            result.before == stored.after,
            "a nil remote decision saw \(result.before), expected \(stored.after)"
        )
        try expect(result.after == result.before, "a nil remote decision returned after \(result.after) != before")
        do {
            _ = try await repository.updateRemote(module: "network") { _ in throw RemoteDecisionError() }
            throw ConformanceFailure("updateRemote returned although decide threw")
        } catch is RemoteDecisionError {
            // Expected.
        } catch let error as ConformanceFailure {
            throw error
        } catch {
            throw ConformanceFailure(
                "decide threw RemoteDecisionError, updateRemote threw \(type(of: error)): \(error)"
            )
        }
        let state = try await repository.state(of: "network")
        try expect(state == stored.after, "a nil or throwing remote decision changed the state to \(state)")
    }

    /// Local and remote updates of one module, sequential then 100 concurrent ones each adding 1 to the revision it
    /// saw, are serialized; with `reopen`, everything survives reopening.
    public func checkLocalAndRemoteUpdatesInterleave() async throws {
        var repository = try await self.makeRepository()
        _ = try await repository.update(module: "network") { _ in
            LocalChange(set: ["proxy.port": .int(3128)], revision: 1)
        }
        _ = try await repository.updateRemote(module: "network") { state in
            RemoteChange(recommended: ["proxy.mode": .string("auto")], mandatory: [:], revision: state.revision + 1)
        }
        _ = try await repository.update(module: "network") { state in
            LocalChange(set: ["proxy.mode": .string("manual")], revision: state.revision + 1)
        }
        _ = try await repository.updateRemote(module: "network") { state in
            RemoteChange(
                recommended: state.recommended,
                mandatory: ["proxy.port": .int(8080)],
                revision: state.revision + 1
            )
        }
        let expected = ModuleState(
            revision: 4,
            local: ["proxy.port": .int(3128), "proxy.mode": .string("manual")],
            recommended: ["proxy.mode": .string("auto")],
            mandatory: ["proxy.port": .int(8080)]
        )
        let sequential = try await repository.state(of: "network")
        try expect(sequential == expected, "after interleaved updates the state is \(sequential), expected \(expected)")
        let count = 100
        let shared = repository
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask {
                    if index.isMultiple(of: 2) {
                        _ = try await shared.update(module: "counter") { state in
                            LocalChange(
                                set: ["local.t\(index)": .int(state.revision + 1)],
                                revision: state.revision + 1
                            )
                        }
                    } else {
                        _ = try await shared.updateRemote(module: "counter") { state in
                            var recommended = state.recommended
                            recommended["remote.t\(index)"] = .int(state.revision + 1)
                            return RemoteChange(
                                recommended: recommended,
                                mandatory: ["count.value": .int(state.revision + 1)],
                                revision: state.revision + 1
                            )
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let counter = try await repository.state(of: "counter")
        try expect(
            counter.revision == Int64(count),
            "after \(count) concurrent local and remote increments the revision is \(counter.revision)"
        )
        try expect(
            counter.local.count == count / 2 && counter.recommended.count == count / 2,
            "\(counter.local.count) local and \(counter.recommended.count) recommended keys, expected \(count / 2) each"
        )
        guard let reopen = self.reopen else { return }
        repository = try await reopen(repository)
        let network = try await repository.state(of: "network")
        try expect(network == expected, "network after reopening is \(network), expected \(expected)")
        let reopened = try await repository.state(of: "counter")
        try expect(reopened == counter, "counter after reopening is \(reopened), expected \(counter)")
    }

    /// With `reopen`: the revision after reopening is the one of the latest change, local or remote.
    public func checkRevisionSurvivesReopenWhicheverKindIsLatest() async throws {
        guard let reopen = self.reopen else { return }
        var repository = try await self.makeRepository()
        _ = try await repository.update(module: "network") { _ in
            LocalChange(set: ["proxy.port": .int(3128)], revision: 3)
        }
        let remote = try await repository.updateRemote(module: "network") { _ in
            RemoteChange(recommended: ["proxy.mode": .string("auto")], mandatory: [:], revision: 7)
        }
        repository = try await reopen(repository)
        var state = try await repository.state(of: "network")
        try expect(state == remote.after, "after a remote update and reopening the state is \(state)")
        let local = try await repository.update(module: "network") { state in
            LocalChange(remove: ["proxy.port"], revision: state.revision + 1)
        }
        try expect(local.after.revision == 8, "a local update after reopening set revision \(local.after.revision)")
        repository = try await reopen(repository)
        state = try await repository.state(of: "network")
        try expect(state == local.after, "after a local update and reopening the state is \(state)")
        let unchangedLayers = try await repository.updateRemote(module: "network") { state in
            RemoteChange(recommended: state.recommended, mandatory: state.mandatory, revision: state.revision + 1)
        }
        repository = try await reopen(repository)
        state = try await repository.state(of: "network")
        try expect(
            state == unchangedLayers.after && state.revision == 9,
            "after a remote update of the revision alone and reopening the state is \(state)"
        )
    }

    /// The remote source's revision is stored with the remote layers, kept by local updates and by a remote update
    /// that does not name one, and survives reopening.
    public func checkRemoteRevisionIsStored() async throws {
        var repository = try await self.makeRepository()
        _ = try await repository.updateRemote(module: "network") { _ in
            RemoteChange(
                recommended: ["proxy.mode": .string("auto")],
                mandatory: [:],
                revision: 1,
                remoteRevision: "r7"
            )
        }
        _ = try await repository.update(module: "network") { state in
            LocalChange(set: ["proxy.port": .int(3128)], revision: state.revision + 1)
        }
        _ = try await repository.updateRemote(module: "network") { state in
            RemoteChange(recommended: ["proxy.mode": .string("manual")], mandatory: [:], revision: state.revision)
        }
        var state = try await repository.state(of: "network")
        try expect(state.remoteRevision == "r7", "the remote revision is \(state.remoteRevision ?? "nil"), expected r7")
        guard let reopen = self.reopen else { return }
        repository = try await reopen(repository)
        state = try await repository.state(of: "network")
        try expect(
            state.remoteRevision == "r7",
            "after reopening the remote revision is \(state.remoteRevision ?? "nil"), expected r7"
        )
    }
}

/// The error the remote checks make `decide` throw.
private struct RemoteDecisionError: Error {}

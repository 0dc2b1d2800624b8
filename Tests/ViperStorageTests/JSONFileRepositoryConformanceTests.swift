import Testing
import ViperSettings
import ViperSettingsTesting
import ViperStorage

/// The shared Repository conformance suite, run against ``JSONFileRepository`` in fresh temporary directories.
@Suite("JSONFileRepository conformance")
struct JSONFileRepositoryConformanceTests {
    let scratch = Scratch()

    /// Each repository in a new directory of the scratch; a small compaction threshold so that compaction happens.
    func suite(closeBeforeReopening: Bool = true) -> RepositoryConformance {
        let scratch = self.scratch
        return RepositoryConformance(
            manyUpdates: 120,
            makeRepository: { makeRepository(scratch.newDirectory(), compactAfterRecords: 16) },
            reopen: { old in
                let old = try #require(old as? JSONFileRepository)
                if closeBeforeReopening { await old.close() }
                return makeRepository(old.directory, compactAfterRecords: 16)
            }
        )
    }

    @Test("a new module is empty")
    func emptyModule() async throws { try await self.suite().checkEmptyModuleIsEmpty() }

    @Test("an update applies its sets, removals and revision")
    func updateApplies() async throws { try await self.suite().checkUpdateAppliesChange() }

    @Test("a nil decision changes nothing")
    func nilDecision() async throws { try await self.suite().checkNilDecisionChangesNothing() }

    @Test("an error thrown by decide propagates and changes nothing")
    func decideError() async throws { try await self.suite().checkDecideErrorPropagates() }

    @Test("modules are independent")
    func independentModules() async throws { try await self.suite().checkModulesAreIndependent() }

    @Test("100 concurrent increments end at revision 100")
    func concurrentUpdates() async throws { try await self.suite().checkConcurrentUpdatesAreAtomic() }

    @Test("every kind of value reads back equal after reopening")
    func valuesRoundTrip() async throws { try await self.suite().checkValuesRoundTrip() }

    @Test("state survives a graceful close and reopening")
    func survivesReopen() async throws { try await self.suite().checkStateSurvivesReopen() }

    @Test("state survives compactions, close and reopening")
    func survivesCompaction() async throws { try await self.suite().checkStateSurvivesCompaction() }

    @Test("state survives reopening without close, as after a crash")
    func survivesReopenWithoutClose() async throws {
        try await self.suite(closeBeforeReopening: false).checkStateSurvivesReopen()
    }

    @Test("state survives compactions and reopening without close")
    func survivesCompactionWithoutClose() async throws {
        try await self.suite(closeBeforeReopening: false).checkStateSurvivesCompaction()
    }

    @Test("a module whose storage works is not refused a write, and asking writes nothing")
    func writeRefusal() async throws { try await self.suite().checkWriteRefusalWritesNothing() }

    @Test("a remote update replaces the remote layers and the revision")
    func remoteUpdateReplaces() async throws { try await self.suite().checkRemoteUpdateReplacesLayers() }

    @Test("a nil or throwing remote decision changes nothing")
    func nilRemoteDecision() async throws { try await self.suite().checkNilRemoteDecisionChangesNothing() }

    @Test("the remote source's revision is stored with the remote layers and survives reopening")
    func remoteRevisionStored() async throws { try await self.suite().checkRemoteRevisionIsStored() }

    @Test("local and remote updates interleave atomically and survive reopening")
    func localAndRemoteInterleave() async throws { try await self.suite().checkLocalAndRemoteUpdatesInterleave() }

    @Test("local and remote updates survive reopening without close")
    func localAndRemoteWithoutClose() async throws {
        try await self.suite(closeBeforeReopening: false).checkLocalAndRemoteUpdatesInterleave()
    }

    @Test("the revision after reopening is the latest, local or remote")
    func revisionAfterReopen() async throws {
        try await self.suite().checkRevisionSurvivesReopenWhicheverKindIsLatest()
        try await self.suite(closeBeforeReopening: false).checkRevisionSurvivesReopenWhicheverKindIsLatest()
    }

    @Test("the whole suite passes in one run")
    func wholeSuite() async throws { try await self.suite().run() }
}

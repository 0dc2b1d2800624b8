import Testing
import ViperSettings
import ViperSettingsTesting

/// The shared Repository conformance suite, run against ``InMemorySettingsRepository`` (no storage, so no reopening).
@Suite("InMemorySettingsRepository conformance")
struct InMemoryRepositoryConformanceTests {
    let suite = RepositoryConformance(makeRepository: { InMemorySettingsRepository() })

    @Test("a new module is empty")
    func emptyModule() async throws { try await self.suite.checkEmptyModuleIsEmpty() }

    @Test("an update applies its sets, removals and revision")
    func updateApplies() async throws { try await self.suite.checkUpdateAppliesChange() }

    @Test("a nil decision changes nothing")
    func nilDecision() async throws { try await self.suite.checkNilDecisionChangesNothing() }

    @Test("an error thrown by decide propagates and changes nothing")
    func decideError() async throws { try await self.suite.checkDecideErrorPropagates() }

    @Test("modules are independent")
    func independentModules() async throws { try await self.suite.checkModulesAreIndependent() }

    @Test("100 concurrent increments end at revision 100")
    func concurrentUpdates() async throws { try await self.suite.checkConcurrentUpdatesAreAtomic() }

    @Test("every kind of value reads back equal")
    func valuesRoundTrip() async throws { try await self.suite.checkValuesRoundTrip() }

    @Test("a module whose storage works is not refused a write, and asking writes nothing")
    func writeRefusal() async throws { try await self.suite.checkWriteRefusalWritesNothing() }

    @Test("a remote update replaces the remote layers and the revision")
    func remoteUpdateReplaces() async throws { try await self.suite.checkRemoteUpdateReplacesLayers() }

    @Test("a nil or throwing remote decision changes nothing")
    func nilRemoteDecision() async throws { try await self.suite.checkNilRemoteDecisionChangesNothing() }

    @Test("local and remote updates interleave atomically")
    func localAndRemoteInterleave() async throws { try await self.suite.checkLocalAndRemoteUpdatesInterleave() }

    @Test("the whole suite passes in one run")
    func wholeSuite() async throws { try await self.suite.run() }
}

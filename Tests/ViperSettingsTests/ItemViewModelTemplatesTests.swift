import SettingsAPI
import Testing

@testable import ViperSettings

@Suite("Item ViewModels from templates made once per item")
struct ItemViewModelTemplatesTests {
    private func setting(_ path: String, _ state: ModuleState) throws -> ResolvedSetting {
        let (sectionID, item) = try #require(Fixtures.network.entry(at: path))
        return ResolvedSetting(module: "network", sectionID: sectionID, item: item, state: state)
    }

    @Test("every value, layer and lock of a key gets the ViewModel the Presenter makes whole")
    func sameAsWhole() throws {
        let templates = ItemViewModelTemplates()
        let states = [
            ModuleState(),
            ModuleState(revision: 2, local: ["proxy.port": .int(8080)]),
            ModuleState(revision: 3, local: ["proxy.port": .int(8080)], recommended: ["proxy.port": .int(3129)]),
            ModuleState(revision: 4, recommended: ["proxy.port": .int(3129)]),
            ModuleState(revision: 5, local: ["proxy.port": .int(8080)], mandatory: ["proxy.port": .int(80)]),
            ModuleState(revision: 6, local: ["proxy.port": .int(99_999)]),
            ModuleState(revision: 7, local: ["proxy.ignore": .strings(["a", "b"]), "dns.timeout": .double(2.5)]),
        ]
        for state in states {
            for path in ["proxy.port", "proxy.ignore", "proxy.mode", "dns.cache", "dns.timeout"] {
                let setting = try self.setting(path, state)
                #expect(templates.item(setting) == SettingsPresenter.item(setting), "\(path) in \(state)")
            }
        }
        #expect(templates.count == 5)
    }

    @Test("past its capacity it starts afresh instead of growing")
    func bounded() throws {
        let templates = ItemViewModelTemplates(capacity: 2)
        for path in ["proxy.port", "proxy.ignore", "proxy.mode", "proxy.port"] {
            let setting = try self.setting(path, ModuleState())
            #expect(templates.item(setting) == SettingsPresenter.item(setting))
        }
        #expect(templates.count == 2)
    }
}

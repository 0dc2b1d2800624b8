import SettingsAPI
import SettingsCLICore
import Testing

@Suite("status and sync: renderer")
struct StatusRendererTests {
    static func status(_ sync: SyncStatusViewModel) -> String {
        StatusRenderer.render(StatusViewModel(version: "1.0", modules: 5, keys: 37, sync: sync, now: 1_000))
    }

    @Test("sync off is one line; a success says how long ago")
    func offAndAge() {
        #expect(Self.status(SyncStatusViewModel(state: "off", source: "")).hasSuffix("\nremote sync: off"))
        let ok = Self.status(
            SyncStatusViewModel(state: "ok", source: "https://h/d.json", lastSuccess: 997, revision: "r7")
        )
        #expect(ok.contains("  last success: 3 s ago\n"), "\(ok)")
    }

    @Test("after a restart, values cached from an earlier run are said to be in force, not that sync never worked")
    func cachedBeforeRestart() {
        let cached = Self.status(SyncStatusViewModel(state: "failing", source: "https://h/d.json", revision: "r7"))
        #expect(cached.contains("last success: not since the daemon started (revision r7 in force, from its cache)"))
        let never = Self.status(SyncStatusViewModel(state: "failing", source: "https://h/d.json"))
        #expect(never.contains("last success: never"), "\(never)")
    }
}

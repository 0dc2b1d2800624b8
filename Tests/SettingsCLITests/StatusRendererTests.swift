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

    @Test("no value in force: a source that names none is told apart from one whose values were all rejected")
    func nothingInForce() {
        let none = Self.status(SyncStatusViewModel(state: "ok", source: "https://h/d.json", lastSuccess: 999))
        #expect(none.contains("(the source names no key of a module served: check its URL or key prefix)"))
        let unknown = Self.status(
            SyncStatusViewModel(
                state: "ok",
                source: "https://h/d.json",
                lastSuccess: 999,
                rejected: ["nosuch: no such module", "network.nokey: no such key (recommended)"]
            )
        )
        #expect(unknown.contains("(the source names no key of a module served: check its URL or key prefix)"))
        let rejected = Self.status(
            SyncStatusViewModel(
                state: "ok",
                source: "https://h/d.json",
                lastSuccess: 999,
                rejected: ["network.proxy.port: must be within 1..65535 (mandatory)"]
            )
        )
        #expect(rejected.contains("(every value the source names was rejected: see below)"), "\(rejected)")
        #expect(rejected.contains("network.proxy.port: must be within 1..65535 (mandatory)"))
    }

    @Test("a status from a daemon before rejectedCount reads, counting the values it lists")
    func olderStatus() throws {
        let json = try JSONValue(
            parsing:
                #"{"state":"ok","source":"s","rejected":["a.b.c: no such key"],"recommendedInForce":0,"mandatoryInForce":0}"#
        )
        let model = try JSONValueDecoder().decode(SyncStatusViewModel.self, from: json)
        #expect(model.rejectedCount == 1 && model.lastSuccess == nil)
    }

    @Test("a sync that failed says so on its first line, not just that no value changed")
    func failedSync() {
        let failing = SyncStatusViewModel(state: "failing", source: "https://h/d.json", lastError: "refused")
        let text = StatusRenderer.render(SyncResultViewModel(sync: failing, changedKeys: [], now: 1_000))
        #expect(text.hasPrefix("sync failed: no value changed\nremote sync:"), "\(text)")
        let ok = SyncStatusViewModel(state: "ok", source: "https://h/d.json", lastSuccess: 999)
        #expect(StatusRenderer.render(SyncResultViewModel(sync: ok, changedKeys: [], now: 1_000)).hasPrefix("no value"))
    }

    @Test("a sync that shared the result of the one just before says so first: this call fetched nothing")
    func earlierSync() {
        let ok = SyncStatusViewModel(state: "ok", source: "https://h/d.json", lastSuccess: 999)
        let text = StatusRenderer.render(
            SyncResultViewModel(sync: ok, changedKeys: ["network.proxy.mode"], now: 1_000, earlier: true)
        )
        #expect(
            text.hasPrefix(
                "no new sync: the one that ended just before (within sync-min-interval) gives its result\n1 value changed:"
            ),
            "\(text)"
        )
        let fresh = StatusRenderer.render(SyncResultViewModel(sync: ok, changedKeys: [], now: 1_000))
        #expect(!fresh.contains("no new sync"))
    }

    @Test("more rejected values than listed: the count is of them all, and the list says how many more there are")
    func moreRejected() {
        let text = Self.status(
            SyncStatusViewModel(
                state: "ok",
                source: "https://h/d.json",
                lastSuccess: 999,
                rejected: ["network.a.b: no such key (mandatory)"],
                rejectedCount: 400_000
            )
        )
        #expect(text.contains("rejected:     400000 remote value(s)"), "\(text)")
        #expect(text.hasSuffix("    … and 399999 more (settingsctl explain KEY shows those of a key)"), "\(text)")
    }

    @Test("problems the daemon reports come first, each on its line, escaped")
    func problems() {
        let model = StatusViewModel(
            version: "1.0",
            modules: 5,
            keys: 37,
            sync: SyncStatusViewModel(state: "off", source: ""),
            now: 1_000,
            problems: [
                "state files unusable: open /s/a\u{1b}[2J: Permission denied", "schema file rejected: /m/p.json",
            ]
        )
        #expect(
            StatusRenderer.render(model)
                == "viper-settingsd 1.0: 5 modules, 37 keys\nproblems:\n"
                + "  state files unusable: open /s/a\\u{1b}[2J: Permission denied\n  schema file rejected: /m/p.json\n"
                + "remote sync: off"
        )
    }
}

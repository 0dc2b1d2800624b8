import SettingsAPI
import SettingsCLICore
import Testing

/// `settingsctl sync` waits for the remote through the daemon: a late answer is not an unreachable daemon.
@Suite("settingsctl sync")
struct SyncCommandTests {
    @Test("sync waits past the client's usual timeout for the daemon's answer")
    func syncIsPatient() throws {
        let model = SyncResultViewModel(
            sync: SyncStatusViewModel(state: "ok", source: "https://fleet.example/settings.json", revision: "r1"),
            changedKeys: [],
            now: 0
        )
        var reply = Array(JSONValue.object(["parameters": try JSONValueEncoder().encode(model)]).serialized().utf8)
        reply.append(0)
        // Nothing, then the reply 2 s later: past a 1 s timeout.
        let server = FakeVarlinkServer(pieces: [[], reply], pauseMicroseconds: 2_000_000)
        let client = VarlinkClient(location: .init(path: server.path, origin: .option), timeoutSeconds: 1)
        let text = try CommandAction.sync.output(using: client, style: .plain, json: true)
        #expect(text.contains("\"revision\"") && text.contains("\"r1\""), "\(text)")
        #expect(CommandAction.syncTimeoutSeconds >= 60)
    }
}

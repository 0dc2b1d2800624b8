import Testing
import ViperSettings

@testable import ViperDaemon

@Suite("The daemon's STATUS= line")
struct DaemonStatusTests {
    let sync = SyncStatusRecorder(source: nil).snapshot

    @Test("a rejected schema file is 'served as before' only when its module is served")
    func rejectedSchemaFate() {
        let served = [ModuleSchema.empty(named: "power")]
        let before = Daemon.status(of: served, sync: self.sync, rejectedSchemaFiles: ["/etc/m/power.json"])
        #expect(before.contains("; SCHEMA REJECTED: /etc/m/power.json, served as before (see the log)"), "\(before)")
        let never = Daemon.status(of: served, sync: self.sync, rejectedSchemaFiles: ["/etc/m/net.json"])
        #expect(never.contains("; SCHEMA REJECTED: /etc/m/net.json, not served (see the log)"), "\(never)")
        let both = Daemon.status(
            of: served,
            sync: self.sync,
            rejectedSchemaFiles: ["/etc/m/net.json", "/etc/m/power.json"]
        )
        #expect(both.contains("; SCHEMA REJECTED: /etc/m/net.json and 1 more, some served as before"), "\(both)")
        let escaped = Daemon.status(of: served, sync: self.sync, rejectedSchemaFiles: ["/m/e\u{1b}[31m\nX.json"])
        #expect(escaped.contains(#"/m/e\u{1b}[31m\nX.json"#), "\(escaped)")
    }

    @Test("a reload that could not read the modules directory is flagged until one can")
    func schemasRefused() {
        let line = Daemon.status(of: [], sync: self.sync, schemasRefused: true)
        #expect(line.contains("; SCHEMAS NOT RELOADED: the last reload could not read the modules directory"))
        #expect(!Daemon.status(of: [], sync: self.sync).contains("NOT RELOADED"))
    }

    @Test("a modules directory without a schema file is named: refused on reload, or serving no module")
    func emptyModulesDirectory() {
        let refused = Daemon.status(
            of: [.empty(named: "t")],
            sync: self.sync,
            schemasRefused: true,
            emptyModulesDirectory: "/etc/m"
        )
        #expect(
            refused.hasSuffix(
                "; SCHEMAS NOT RELOADED: the modules directory /etc/m holds no schema files (*.json), the previous "
                    + "schemas are in force"
            ),
            "\(refused)"
        )
        let none = Daemon.status(of: [], sync: self.sync, emptyModulesDirectory: "/etc/m")
        #expect(none.hasSuffix("; NO MODULE SERVED: the modules directory /etc/m holds no schema files (*.json)"))
        let escaped = Daemon.status(of: [], sync: self.sync, emptyModulesDirectory: "/m\n")
        #expect(escaped.contains(#"/m\n holds"#), "\(escaped)")
    }
}

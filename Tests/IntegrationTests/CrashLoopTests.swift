import Foundation
import SettingsAPI
import Testing
import ViperTestSupport

/// Crash safety of the real daemon: concurrent writers, SIGKILL at random moments, restart, check. 10 cycles here;
/// `scripts/crash-loop.sh` runs 200 (`VIPER_CRASH_CYCLES`).
@Suite("Crash loop", .serialized)
struct CrashLoopTests {
    static let writers = 4
    static let keys = (0..<Self.writers).map { "crash.writers.w\($0)" }

    @Test("SIGKILL under concurrent writers: no acknowledged write lost, every file parses, no revision goes back")
    func crashLoop() throws {
        let cycles = ProcessInfo.processInfo.environment["VIPER_CRASH_CYCLES"].flatMap(Int.init) ?? 10
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("viper-crash-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let daemon = KillableDaemon(root: root.path)
        try Files.write(Self.schema, to: "\(daemon.modulesDirectory)/crash.json")
        let ledger = CrashLedger()
        var generator = SystemRandomNumberGenerator()
        let started = Date()
        for cycle in 0..<cycles {
            try daemon.start()
            try self.verify(daemon, ledger: ledger, cycle: cycle)
            ledger.isStopped = false
            let acknowledgedBefore = ledger.acknowledged
            let group = DispatchGroup()
            for writer in 0..<Self.writers {
                let thread = Thread {
                    Self.write(key: Self.keys[writer], daemon: daemon, ledger: ledger)
                    group.leave()
                }
                group.enter()
                thread.start()
            }
            // Kill once the writers are under way, at a random moment.
            let deadline = Date().addingTimeInterval(60)
            let target = acknowledgedBefore + Self.writers + Int.random(in: 0...40, using: &generator)
            while ledger.acknowledged < target && Date() < deadline { usleep(1000) }
            daemon.kill()
            ledger.isStopped = true
            group.wait()
            #expect(ledger.acknowledged > acknowledgedBefore, "cycle \(cycle): no write was acknowledged")
            try self.checkFiles(in: daemon.stateDirectory, cycle: cycle)
        }
        try daemon.start()
        try self.verify(daemon, ledger: ledger, cycle: cycles)
        daemon.kill()
        #expect(!daemon.log.contains("corrupt"), "a file was found corrupt:\n\(daemon.log)")
        print(
            "crash loop: \(cycles) cycles, \(ledger.acknowledged) acknowledged writes, "
                + "\(Int(Date().timeIntervalSince(started))) s"
        )
    }

    /// One writer: sets its key to 1, 2, 3… until stopped, recording what the daemon acknowledged.
    static func write(key: String, daemon: KillableDaemon, ledger: CrashLedger) {
        while !ledger.isStopped {
            let value = ledger.nextValue(for: key)
            ledger.sending(value, to: key)
            let result = daemon.ctl(["--json", "set", key, String(value)])
            guard result.status == 0 else { return }  // the daemon is gone
            guard let reply = try? JSONValue(parsing: result.stdout), let revision = reply["revision"]?.intValue else {
                Issue.record("unreadable reply to set: \(result)")
                return
            }
            ledger.acknowledged(value, of: key, revision: revision)
        }
    }

    /// After a restart: every key holds its last acknowledged value or a later one, the revision did not go back.
    func verify(_ daemon: KillableDaemon, ledger: CrashLedger, cycle: Int) throws {
        for key in Self.keys {
            let get = daemon.ctl(["get", key])
            let value = try #require(Int64(get.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(get)")
            if let problem = ledger.check(value, of: key) { Issue.record("cycle \(cycle): \(problem)") }
        }
        let modules = daemon.ctl(["--json", "modules"])
        let list = try JSONValue(parsing: modules.stdout)
        let entries = list.arrayValue ?? list["modules"]?.arrayValue ?? []
        let crash = try #require(entries.first { $0["module"]?.stringValue == "crash" }, "\(modules)")
        let revision = try #require(crash["revision"]?.intValue)
        if let problem = ledger.check(revision: revision) { Issue.record("cycle \(cycle): \(problem)") }
    }

    /// Every state file parses: snapshots and remote files whole, journals line by line (an append cut by the
    /// crash, without its newline, is allowed last); nothing was set aside as corrupt.
    func checkFiles(in directory: String, cycle: Int) throws {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            if name == "schemas" {
                // The schemas served, kept for the next start: each a whole schema file.
                try self.checkFiles(in: "\(directory)/schemas", cycle: cycle)
                continue
            }
            let text = try String(contentsOfFile: "\(directory)/\(name)", encoding: .utf8)
            if name.contains(".corrupt-") {
                Issue.record("cycle \(cycle): \(name) was set aside as corrupt")
            } else if name.hasSuffix(".journal") {
                for line in text.split(separator: "\n", omittingEmptySubsequences: true).dropLast(
                    text.hasSuffix("\n") ? 0 : 1
                ) {
                    #expect((try? JSONValue(parsing: String(line))) != nil, "cycle \(cycle): \(name): \(line)")
                }
            } else if name.hasSuffix(".json") && !name.hasPrefix(".") {
                #expect((try? JSONValue(parsing: text)) != nil, "cycle \(cycle): \(name) does not parse:\n\(text)")
            }
        }
    }

    static let schema = """
        {
          "module": "crash",
          "title": "Crash loop",
          "sections": [
            { "id": "writers", "items": [
        \((0..<Self.writers).map { "      { \"id\": \"w\($0)\", \"type\": \"int\", \"default\": 0 }" }.joined(separator: ",\n"))
            ] }
          ]
        }
        """
}

import Foundation
import SettingsAPI
import Testing
import ViperSettings
import ViperStorage
import ViperTestSupport

/// Repairs keep the promises made to clients: revisions never go back, values that break the schema are reported,
/// and files that cannot be used are named while the rest is served.
@Suite("JSONFileRepository repairs")
struct JSONFileRepositoryRepairTests {
    let scratch = Scratch()

    /// Writes revisions 1…4 locally and 5 remotely, as a running daemon would.
    func writeHistory(_ directory: String) async throws {
        let repository = makeRepository(directory)
        for port in 1...4 {
            _ = try await repository.update(module: "network") {
                LocalChange(set: ["proxy.port": .int(Int64(port))], revision: $0.revision + 1)
            }
        }
        _ = try await repository.updateRemote(module: "network") {
            RemoteChange(recommended: ["proxy.mode": .string("auto")], mandatory: [:], revision: $0.revision + 1)
        }
    }

    @Test("a garbage line in the journal: the revision after the restart is above every one given out")
    func garbageJournalLine() async throws {
        try await self.writeHistory(self.scratch.path)
        let journal = try Files.read(self.scratch.file("network.journal")).split(separator: "\n")
        #expect(journal.count == 5)
        try Files.write(
            journal[0] + "\n" + "#garbage\n" + journal[1...].joined(separator: "\n") + "\n",
            to: self.scratch.file("network.journal")
        )
        let state = try await makeRepository(self.scratch.path).state(of: "network")
        #expect(state.revision > 5)
        // The revision is durable: reopening without any write does not go back either.
        #expect(try await makeRepository(self.scratch.path).state(of: "network").revision >= state.revision)
    }

    @Test(
        "a remote cache set aside as corrupt: the revision after the restart is above every one given out",
        arguments: ["", "\u{0}\u{0}\u{0}", "{\"format\": 1, \"module\": \"network\", \"revision\": 5, \"recomm"]
    )
    func corruptRemoteCache(text: String) async throws {
        try await self.writeHistory(self.scratch.path)
        try Files.write(text, to: self.scratch.file("network.remote.json"))
        let state = try await makeRepository(self.scratch.path).state(of: "network")
        #expect(state.revision > 5)
        #expect(state.recommended.isEmpty && state.local["proxy.port"] == .int(4))
        #expect(try await makeRepository(self.scratch.path).state(of: "network").revision >= state.revision)
    }

    @Test("a remote cache of an older version (no journal record) keeps its revision when it is set aside")
    func corruptRemoteCacheWithoutRecord() async throws {
        try Files.write(journalLine(revision: 4, set: ["proxy.port": 4]), to: self.scratch.file("network.journal"))
        try Files.write(
            #"{"format": 1, "module": "network", "revision": 9, "recommended": "#,
            to: self.scratch.file("network.remote.json")
        )
        #expect(try await makeRepository(self.scratch.path).state(of: "network").revision == 10)
    }

    @Test("stored values that break the schema are each logged with module, key, value and reason")
    func valuesBreakingTheSchema() async throws {
        try Files.write(
            #"{"format": 1, "module": "network", "revision": 2, "local": {"proxy.port": "abc", "proxy.host": "ok"}}"#,
            to: self.scratch.file("network.json")
        )
        try Files.write(
            #"{"format": 1, "module": "network", "revision": 2, "recommended": {"proxy.port": 99999}, "mandatory": {}}"#,
            to: self.scratch.file("network.remote.json")
        )
        let schema = try ModuleSchema(
            json: JSONValue(
                parsing: """
                    {"module": "network", "sections": [{"id": "proxy", "items": [
                      {"id": "port", "type": "int", "range": [1, 65535], "default": 3128},
                      {"id": "host", "type": "string", "default": ""}]}]}
                    """
            )
        )
        let recorder = LogRecorder()
        let repository = JSONFileRepository(
            directory: self.scratch.path,
            threadPool: .singleton,
            logger: recorder.logger,
            schema: { $0 == "network" ? schema : nil },
            timestamp: { testTimestamp }
        )
        let state = try await repository.state(of: "network")
        #expect(state.local["proxy.port"] == .string("abc"), "kept in the files, ignored when resolving")
        let reports = recorder.entries.filter { $0.metadata["reason"] != nil && $0.level == .warning }
        #expect(reports.count == 2)
        let local = try #require(reports.first { $0.metadata["layer"] == "local" })
        #expect(local.metadata["key"] == "network.proxy.port" && local.metadata["value"] == "\"abc\"")
        #expect(local.metadata["module"] == "network")
        #expect(local.metadata["reason"]?.description.contains("expected an integer") == true)
        let remote = try #require(reports.first { $0.metadata["layer"] == "recommended" })
        #expect(remote.metadata["value"] == "99999")
        #expect(remote.metadata["reason"]?.description.contains("1..65535") == true)
    }

    @Test("a state directory that is a file: the problem is named, reads serve defaults, writes are refused")
    func stateDirectoryIsAFile() async throws {
        let path = self.scratch.file("state")
        try Files.write("not a directory", to: path)
        let recorder = LogRecorder()
        let repository = makeRepository(path, recorder: recorder)
        let problems = await repository.problems(modules: ["network"])
        #expect(
            problems.count == 1 && problems.first?.message.contains("is a regular file, expected a directory") == true
        )
        #expect(try await repository.state(of: "network") == .empty)
        let error = await #expect(throws: StorageError.self) {
            try await repository.update(module: "network") { _ in LocalChange(set: ["proxy.port": .int(1)], revision: 1)
            }
        }
        #expect(error?.message.contains("\(path) cannot be used") == true)
        #expect(recorder.messages(at: .error).contains { $0.contains("is a regular file, expected a directory") })
        // Fixed: the next write goes through.
        try FileManager.default.removeItem(atPath: path)
        _ = try await repository.update(module: "network") { _ in LocalChange(set: ["proxy.port": .int(1)], revision: 1)
        }
        #expect(try await makeRepository(path).state(of: "network").local["proxy.port"] == .int(1))
    }

    @Test("NAME.json a directory: named at start, the module serves its remote values, refuses writes; others work")
    func snapshotIsADirectory() async throws {
        try FileManager.default.createDirectory(
            atPath: self.scratch.file("network.json"),
            withIntermediateDirectories: true
        )
        try Files.write(
            #"{"format": 1, "module": "network", "revision": 3, "recommended": {"proxy.mode": "auto"}, "mandatory": {}}"#,
            to: self.scratch.file("network.remote.json")
        )
        let repository = makeRepository(self.scratch.path)
        let problems = await repository.problems(modules: ["display", "network"])
        #expect(
            problems.map(\.message) == [
                "\(self.scratch.file("network.json")) is a directory, expected a file; move it out of the way"
            ]
        )
        #expect(try await repository.state(of: "network").recommended == ["proxy.mode": .string("auto")])
        let error = await #expect(throws: StorageError.self) {
            try await repository.update(module: "network") { _ in LocalChange(set: ["proxy.port": .int(1)], revision: 4)
            }
        }
        #expect(error?.message.contains("\(self.scratch.file("network.json")) is a directory") == true)
        #expect(await repository.writeRefusal(of: "display") == nil)
        _ = try await repository.update(module: "display") { _ in
            LocalChange(set: ["screen.scale": .int(2)], revision: 1)
        }
        #expect(try await repository.state(of: "display").revision == 1)
    }

    @Test(
        "a state file that is a symbolic link is a file of the wrong kind: named, not read, writes refused",
        arguments: ["network.json", "network.journal", "network.remote.json"]
    )
    func stateFileIsASymbolicLink(name: String) async throws {
        let elsewhere = self.scratch.file("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
        let directory = self.scratch.file("state")
        try await self.writeHistory(directory)
        let link = "\(directory)/\(name)"
        // What the link points to is a file of the same module, with values the module never had.
        let target = "\(elsewhere)/\(name)"
        try? FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let planted: String =
            switch name {
            case "network.journal": journalLine(revision: 9, set: ["proxy.port": 99])
            case "network.json": #"{"format": 1, "module": "network", "revision": 9, "local": {"proxy.port": 99}}"#
            default: #"{"format": 1, "module": "network", "revision": 9, "recommended": {"proxy.port": 99}}"#
            }
        try Files.write(planted, to: target)

        let recorder = LogRecorder()
        let repository = makeRepository(directory, recorder: recorder)
        let problems = await repository.problems(modules: ["network"])
        #expect(
            problems.count == 1
                && problems.first?.message.hasPrefix("\(link) is a symbolic link (to \(target))") == true
        )
        let state = try await repository.state(of: "network")
        #expect(state.local["proxy.port"] != .int(99) && state.recommended["proxy.port"] == nil, "not read through")
        #expect(recorder.messages(at: .error).contains { $0.contains("\(link) is a symbolic link") })
        let error = await #expect(throws: StorageError.self) {
            try await repository.update(module: "network") {
                LocalChange(set: ["proxy.port": .int(1)], revision: $0.revision + 1)
            }
        }
        #expect(error?.message.contains("\(link) is a symbolic link") == true, "\(String(describing: error))")
        #expect(try Files.read(target) == planted, "nothing written through the link")
        // Putting the file itself there is enough.
        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.moveItem(atPath: target, toPath: link)
        _ = try await repository.update(module: "network") {
            LocalChange(set: ["proxy.port": .int(1)], revision: $0.revision + 1)
        }
    }

    @Test("NAME.json unusable: the revision served stays at the journal's; once fixed, watchers are told to start over")
    func snapshotUnusableThenFixed() async throws {
        try FileManager.default.createDirectory(
            atPath: self.scratch.file("network.json"),
            withIntermediateDirectories: true
        )
        try Files.write(
            journalLine(revision: 3, set: ["proxy.port": 3]) + journalLine(revision: 4, set: ["proxy.port": 4]),
            to: self.scratch.file("network.journal")
        )
        let feed = ChangeFeed()
        let repository = JSONFileRepository(
            directory: self.scratch.path,
            threadPool: .singleton,
            logger: LogRecorder().logger,
            feed: feed
        )
        #expect(try await repository.state(of: "network").revision == 4, "revision 4 was given out: never less")
        let subscription = feed.subscribe(modules: ["network"])
        try FileManager.default.removeItem(atPath: self.scratch.file("network.json"))
        let after = try await repository.update(module: "network") {
            LocalChange(set: ["proxy.mode": .string("auto")], revision: $0.revision + 1)
        }.after
        #expect(after.local == ["proxy.port": .int(4), "proxy.mode": .string("auto")] && after.revision == 5)
        #expect(
            await subscription.next() == .reset(module: "network", cause: .stateReloaded),
            "what was served meanwhile was not the state"
        )
    }

    @Test("a module whose files cannot be used refuses writes before any is tried: writeRefusal names the file")
    func writeRefusalBeforeWriting() async throws {
        try FileManager.default.createDirectory(
            atPath: self.scratch.file("network.journal"),
            withIntermediateDirectories: true
        )
        let repository = makeRepository(self.scratch.path)
        let refusal = await repository.writeRefusal(of: "network")
        #expect(
            "\(refusal.map { "\($0)" } ?? "none")".contains("\(self.scratch.file("network.journal")) is a directory"),
            "\(String(describing: refusal))"
        )
        #expect(await repository.writeRefusal(of: "display") == nil)
        #expect(!FileManager.default.fileExists(atPath: self.scratch.file("display.journal")), "nothing written")
        // Moving the culprit away is enough, as for a write.
        try FileManager.default.removeItem(atPath: self.scratch.file("network.journal"))
        #expect(await repository.writeRefusal(of: "network") == nil)
        _ = try await repository.update(module: "network") { _ in LocalChange(set: ["proxy.port": .int(1)], revision: 1)
        }
    }

    @Test("a journal is compacted once it passes the size limit, whatever its record count")
    func compactsBySize() async throws {
        let repository = JSONFileRepository(
            directory: self.scratch.path,
            threadPool: .singleton,
            logger: LogRecorder().logger,
            compactAfterBytes: 4096
        )
        for index in 0..<5 {
            _ = try await repository.update(module: "network") {
                LocalChange(
                    set: ["items.k\(index)": .string(String(repeating: "x", count: 1500))],
                    revision: $0.revision + 1
                )
            }
        }
        let journal = try Files.read(self.scratch.file("network.journal"))
        #expect(journal.utf8.count < 4096)
        let snapshot = try JSONValue(parsing: Files.read(self.scratch.file("network.json")))
        #expect((snapshot["revision"]?.intValue ?? 0) >= 3)
        #expect(try await makeRepository(self.scratch.path).state(of: "network").local.count == 5)
    }
}

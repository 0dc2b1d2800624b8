import Foundation
import SettingsAPI
import Testing
import ViperSettings
import ViperStorage
import ViperTestSupport

/// The remote cache file, `NAME.remote.json`: its format, durability and recovery.
@Suite("JSONFileRepository remote layers")
struct JSONFileRepositoryRemoteTests {
    let scratch = Scratch()

    @Test("a remote update writes readable, pretty-printed JSON and a journal record of its revision alone")
    func readableFile() async throws {
        let directory = self.scratch.newDirectory()
        let repository = makeRepository(directory)
        let syncs = repository.syncCount
        _ = try await repository.updateRemote(module: "network") { _ in
            RemoteChange(
                recommended: ["proxy.mode": .string("auto")],
                mandatory: ["proxy.port": .int(8080)],
                revision: 12
            )
        }
        let text = try Files.read("\(directory)/network.remote.json")
        #expect(
            text == """
                {
                  "format": 1,
                  "module": "network",
                  "revision": 12,
                  "recommended": {
                    "proxy.mode": "auto"
                  },
                  "mandatory": {
                    "proxy.port": 8080
                  }
                }

                """
        )
        let json = try JSONValue(parsing: text)
        #expect(json["revision"]?.intValue == 12)
        #expect(json["mandatory"]?["proxy.port"]?.intValue == 8080)
        #expect(Files.list(directory) == ["network.journal", "network.remote.json"])
        #expect(try Files.read("\(directory)/network.journal") == journalLine(revision: 12))
        // Journal, temporary file, then directory (the directory's creation syncs its parent, not counted).
        #expect(repository.syncCount - syncs == 3)
    }

    @Test("a nil remote decision touches no file")
    func nilWritesNothing() async throws {
        let directory = self.scratch.newDirectory()
        let repository = makeRepository(directory)
        _ = try await repository.update(module: "network") { _ in
            LocalChange(set: ["proxy.port": .int(3128)], revision: 1)
        }
        _ = try await repository.updateRemote(module: "network") { _ in
            RemoteChange(recommended: ["proxy.mode": .string("auto")], mandatory: [:], revision: 2)
        }
        let before = try Files.fingerprint(directory)
        let syncs = repository.syncCount
        let result = try await repository.updateRemote(module: "network") { _ in nil }
        #expect(result.before == result.after)
        #expect(try Files.fingerprint(directory) == before)
        #expect(repository.syncCount == syncs)
        _ = try await repository.updateRemote(module: "display") { _ in nil }
        #expect(Files.list(directory) == ["network.journal", "network.remote.json"])
    }

    @Test("remote layers and the newer revision load from the files")
    func loadsFromFiles() async throws {
        try Files.write(
            #"{"format": 1, "module": "network", "revision": 5, "local": {"proxy.port": 3128}}"#,
            to: self.scratch.file("network.json")
        )
        try Files.write(
            #"""
            {"format": 1, "module": "network", "revision": 9,
             "recommended": {"proxy.mode": "auto", "proxy.bad": {"nested": true}}, "mandatory": {"proxy.port": 8080}}
            """#,
            to: self.scratch.file("network.remote.json")
        )
        let recorder = LogRecorder()
        let repository = makeRepository(self.scratch.path, recorder: recorder)
        let expected = ModuleState(
            revision: 9,
            local: ["proxy.port": .int(3128)],
            recommended: ["proxy.mode": .string("auto")],
            mandatory: ["proxy.port": .int(8080)]
        )
        #expect(try await repository.state(of: "network") == expected)
        let warnings = recorder.messages(at: .warning)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("recommended: proxy.bad") == true)
        #expect(recorder.messages(at: .error).isEmpty)
        // A later local revision wins over the remote file's.
        try Files.write(
            journalLine(revision: 10, set: ["proxy.mode": "manual"]),
            to: self.scratch.file("other.journal")
        )
        try Files.write(
            #"{"format": 1, "module": "other", "revision": 4, "recommended": {}, "mandatory": null}"#,
            to: self.scratch.file("other.remote.json")
        )
        #expect(
            try await repository.state(of: "other")
                == ModuleState(revision: 10, local: ["proxy.mode": .string("manual")])
        )
    }

    @Test(
        "a corrupt remote file is moved aside and the local values still load",
        arguments: [
            "{\"format\": 1,\n  \"module\": oops}",
            #"{"format": 1, "module": "display", "revision": 3, "recommended": {}, "mandatory": {}}"#,
            #"{"format": 2, "module": "network", "revision": 3, "recommended": {}, "mandatory": {}}"#,
            #"{"format": 1, "module": "network", "revision": 3, "recommended": [1], "mandatory": {}}"#,
            #"{"format": 1, "module": "network", "revision": -1, "recommended": {}, "mandatory": {}}"#,
            "",
        ]
    )
    func corruptRemoteFile(text: String) async throws {
        try Files.write(
            #"{"format": 1, "module": "network", "revision": 5, "local": {"proxy.port": 3128}}"#,
            to: self.scratch.file("network.json")
        )
        try Files.write(
            journalLine(revision: 6, set: ["proxy.mode": "manual"]),
            to: self.scratch.file("network.journal")
        )
        try Files.write(text, to: self.scratch.file("network.remote.json"))
        let recorder = LogRecorder()
        let repository = makeRepository(self.scratch.path, recorder: recorder)
        // The remote file's revision is lost: the module goes on above every revision its files name.
        let local = ModuleState(revision: 7, local: ["proxy.port": .int(3128), "proxy.mode": .string("manual")])
        #expect(try await repository.state(of: "network") == local)
        let aside = self.scratch.file("network.remote.json.corrupt-\(testTimestamp)")
        #expect(try Files.read(aside) == text)
        #expect(!Files.exists(self.scratch.file("network.remote.json")))
        let errors = recorder.messages(at: .error)
        #expect(errors.count == 1)
        #expect(errors.first?.contains(aside) == true)
        #expect(recorder.entries.first { $0.level == .error }?.metadata["module"] == "network")
        // The module goes on: a remote update writes a fresh file, and everything survives reopening.
        let remote = try await repository.updateRemote(module: "network") { state in
            RemoteChange(recommended: ["proxy.mode": .string("auto")], mandatory: [:], revision: state.revision + 1)
        }
        #expect(try await makeRepository(self.scratch.path).state(of: "network") == remote.after)
    }

    @Test("a temporary remote file left by a crash is removed on load")
    func leftoverTemporaryFile() async throws {
        try Files.write("{\"format\": 1, \"module\": \"net", to: self.scratch.file(".network.remote.json.tmp"))
        #expect(try await makeRepository(self.scratch.path).state(of: "network") == .empty)
        #expect(!Files.exists(self.scratch.file(".network.remote.json.tmp")))
    }

    @Test("remote layers survive compaction of the journal")
    func survivesCompaction() async throws {
        let directory = self.scratch.newDirectory()
        var repository = makeRepository(directory, compactAfterRecords: 4)
        _ = try await repository.updateRemote(module: "network") { _ in
            RemoteChange(
                recommended: ["proxy.mode": .string("auto")],
                mandatory: ["proxy.port": .int(8080)],
                revision: 1
            )
        }
        var last = ModuleState.empty
        for step in 0..<10 {
            last = try await repository.update(module: "network") { state in
                LocalChange(set: ["items.step": .int(Int64(step))], revision: state.revision + 1)
            }.after
        }
        await repository.close()
        repository = makeRepository(directory, compactAfterRecords: 4)
        #expect(try await repository.state(of: "network") == last)
        #expect(last.revision == 11 && last.mandatory == ["proxy.port": .int(8080)])
    }

    @Test("a module id of the longest length gets every state file, the longest name of a corrupt one included")
    func longestModuleID() async throws {
        let module = "m" + String(repeating: "x", count: ModuleSchema.maximumIDLength - 1)
        let aside = self.scratch.file("\(module).remote.json.corrupt-\(testTimestamp)")
        // A corrupt remote file set aside at the same time stamp as an earlier one takes the longest name: "-2".
        try Files.write("{", to: aside)
        try Files.write("{", to: self.scratch.file("\(module).remote.json"))
        let repository = makeRepository(self.scratch.path, compactAfterRecords: 2)
        #expect(try await repository.state(of: module).local.isEmpty)
        #expect(Files.exists("\(aside)-2"))
        for port in Int64(1)...3 {
            _ = try await repository.update(module: module) { state in
                LocalChange(set: ["proxy.port": .int(port)], revision: state.revision + 1)
            }
        }
        _ = try await repository.updateRemote(module: module) { state in
            RemoteChange(recommended: ["proxy.mode": .string("auto")], mandatory: [:], revision: state.revision + 1)
        }
        await repository.close()
        let reopened = try await makeRepository(self.scratch.path).state(of: module)
        #expect(reopened.local == ["proxy.port": .int(3)])
        #expect(reopened.recommended == ["proxy.mode": .string("auto")])
        #expect(Files.exists(self.scratch.file("\(module).json")))
    }

    @Test("a module name ending in .remote is refused")
    func remoteSuffixRefused() async throws {
        let repository = makeRepository(self.scratch.newDirectory())
        await #expect(throws: StorageError.self) { try await repository.state(of: "network.remote") }
    }
}

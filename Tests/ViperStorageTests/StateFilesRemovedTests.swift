import Foundation
import Testing
import ViperSettings
import ViperStorage
import ViperTestSupport

/// State files removed from under a running daemon: no write is acknowledged that a restart would not find.
@Suite("JSONFileRepository: state files removed while it runs")
struct StateFilesRemovedTests {
    let scratch = Scratch()

    func set(_ repository: JSONFileRepository, _ key: String, _ value: Int64) async throws -> Int64 {
        try await repository.update(module: "network") {
            LocalChange(set: [key: .int(value)], revision: $0.revision + 1)
        }.after.revision
    }

    @Test("a state directory removed, or replaced by another, refuses writes naming it; nothing lands in the new one")
    func directoryRemovedOrReplaced() async throws {
        for replaced in [false, true] {
            let directory = self.scratch.newDirectory()
            let repository = makeRepository(directory)
            _ = try await self.set(repository, "proxy.port", 1)
            try FileManager.default.removeItem(atPath: directory)
            if replaced {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            }
            let what = replaced ? "was replaced by another directory" : "was removed"
            for module in ["network", "locale"] {
                await #expect {
                    try await repository.update(module: module) {
                        LocalChange(set: ["proxy.port": .int(2)], revision: $0.revision + 1)
                    }
                } throws: { error in
                    "\(error)".contains("the state directory \(directory) \(what) while the daemon ran")
                }
            }
            #expect(try await repository.state(of: "network").local["proxy.port"] == .int(1), "not acknowledged")
            // What status lists: the one failure of both modules, once.
            let failing = await repository.failingWrites().map(\.message)
            #expect(failing.count == 1 && failing[0].contains("\(what) while the daemon ran"), "\(failing)")
            let left = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            #expect(left.isEmpty, "nothing is written beside what another daemon may write there: \(left)")
        }
    }

    @Test("a journal removed while open: the next write puts the whole state in a snapshot, and a restart has it all")
    func journalRemoved() async throws {
        let directory = self.scratch.newDirectory()
        let recorder = LogRecorder()
        let repository = makeRepository(directory, recorder: recorder)
        _ = try await self.set(repository, "proxy.port", 1)
        _ = try await self.set(repository, "dns.cache", 0)
        try FileManager.default.removeItem(atPath: "\(directory)/network.journal")
        let revision = try await self.set(repository, "proxy.mode", 3)
        #expect(
            recorder.count { $0.hasPrefix("The journal of module network was removed or renamed while the daemon ran") }
                == 1
        )
        let restarted = try await makeRepository(directory).state(of: "network")
        #expect(restarted.local == ["proxy.port": .int(1), "dns.cache": .int(0), "proxy.mode": .int(3)])
        #expect(restarted.revision == revision)
        // The snapshot and the journal both removed: the next write rewrites them from the state in memory.
        try FileManager.default.removeItem(atPath: "\(directory)/network.journal")
        try FileManager.default.removeItem(atPath: "\(directory)/network.json")
        _ = try await self.set(repository, "proxy.port", 5)
        let again = try await makeRepository(directory).state(of: "network")
        #expect(again.local == ["proxy.port": .int(5), "dns.cache": .int(0), "proxy.mode": .int(3)])
    }
}

extension StateFilesRemovedTests {
    @Test("a journal renamed away while open: the next write puts the whole state in a snapshot, a restart has it all")
    func journalRenamed() async throws {
        let directory = self.scratch.newDirectory()
        let recorder = LogRecorder()
        let repository = makeRepository(directory, recorder: recorder)
        _ = try await self.set(repository, "proxy.port", 1)
        try FileManager.default.moveItem(
            atPath: "\(directory)/network.journal",
            toPath: "\(directory)/network.journal.old"
        )
        _ = try await self.set(repository, "dns.cache", 0)
        let revision = try await self.set(repository, "proxy.mode", 3)
        #expect(
            recorder.count { $0.hasPrefix("The journal of module network was removed or renamed while the daemon ran") }
                == 1
        )
        // A crash now: nothing but the files.
        let restarted = try await makeRepository(directory).state(of: "network")
        #expect(restarted.local == ["proxy.port": .int(1), "dns.cache": .int(0), "proxy.mode": .int(3)])
        #expect(restarted.revision == revision)
    }

    @Test(
        "a journal cut or written to by another process while open: the next write puts the whole state in a snapshot",
        arguments: ["truncated", "appended"]
    )
    func journalChangedInPlace(how: String) async throws {
        let directory = self.scratch.newDirectory()
        let recorder = LogRecorder()
        let repository = makeRepository(directory, recorder: recorder)
        _ = try await self.set(repository, "proxy.port", 1)
        _ = try await self.set(repository, "dns.cache", 0)
        let journal = "\(directory)/network.journal"
        if how == "truncated" {
            try #require(truncate(journal, 0) == 0)
        } else {
            let handle = try #require(FileHandle(forWritingAtPath: journal))
            handle.seekToEndOfFile()
            handle.write(Data("garbage that is not JSON\n".utf8))
            try handle.close()
        }
        let revision = try await self.set(repository, "proxy.mode", 3)
        let revision2 = try await self.set(repository, "proxy.port", 4)
        #expect(
            recorder.count {
                $0.hasPrefix("The journal of module network was changed by another process while the daemon ran")
            } == 1
        )
        let restarted = try await makeRepository(directory).state(of: "network")
        #expect(restarted.local == ["proxy.port": .int(4), "dns.cache": .int(0), "proxy.mode": .int(3)])
        #expect(restarted.revision == revision2 && revision2 == revision + 1)
        #expect(!(try Files.read(journal).contains("garbage")), "what another process wrote is not kept")
    }
}

/// The copies of the schemas served, kept in the state directory for the next start.
@Suite("ServedSchemaStore")
struct ServedSchemaStoreTests {
    let scratch = Scratch()

    @Test("holds exactly the schemas recorded last: changed ones replaced, those no longer served removed")
    func recordAndRead() throws {
        let store = ServedSchemaStore(stateDirectory: self.scratch.path)
        #expect(store.read().isEmpty, "nothing kept before the first start")
        try store.record(["network": Array("{\"a\":1}".utf8), "power": Array("{}".utf8)])
        #expect(store.read() == ["network": Array("{\"a\":1}".utf8), "power": Array("{}".utf8)])
        try store.record(["network": Array("{\"a\":2}".utf8)])
        #expect(store.read() == ["network": Array("{\"a\":2}".utf8)])
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.path) == ["network.json"], "no leftovers")
    }

    @Test("a kept copy larger than a schema file may be is given as no bytes, without being read to its end")
    func oversizedCopy() throws {
        let store = ServedSchemaStore(stateDirectory: self.scratch.path)
        try store.record(["network": Array("{}".utf8), "power": Array("{}".utf8)])
        try #require(truncate("\(store.path)/power.json", 1 << 40) == 0)  // sparse: 1 TiB read whole
        #expect(store.read() == ["network": Array("{}".utf8), "power": []])
    }

    @Test("a kept copy that cannot be read is given as no bytes (its module was served), not left out")
    func unreadableCopy() throws {
        let store = ServedSchemaStore(stateDirectory: self.scratch.path)
        try store.record(["network": Array("{}".utf8), "power": Array("{}".utf8)])
        try FileManager.default.removeItem(atPath: "\(store.path)/power.json")
        try FileManager.default.createDirectory(
            atPath: "\(store.path)/power.json",
            withIntermediateDirectories: false
        )
        #expect(store.read() == ["network": Array("{}".utf8), "power": []])
    }

    @Test("each copy is written durably: the file synced before its rename, then the folder")
    func durableCopies() throws {
        let store = ServedSchemaStore(stateDirectory: self.scratch.path)
        try store.record(["network": Array("{}".utf8), "power": Array("{}".utf8)])
        #expect(store.syncCount == 3, "two files and the folder")
        try store.record(["network": Array("{\"a\":1}".utf8), "power": Array("{}".utf8)])
        #expect(store.syncCount == 5, "the changed file and the folder")
    }

    @Test("nothing is recorded once the locked state directory was removed or replaced: none is made at its path")
    func recordsOnlyInTheLockedDirectory() throws {
        for replaced in [false, true] {
            let path = self.scratch.file(replaced ? "replaced" : "removed")
            let lock = try StateDirectoryLock.acquire(path)
            let store = ServedSchemaStore(stateDirectory: path, lock: lock)
            try store.record(["network": Array("{}".utf8)])
            try FileManager.default.removeItem(atPath: path)
            if replaced { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false) }
            let refused = #expect(throws: StorageError.self) { try store.record(["network": Array("{\"a\":1}".utf8)]) }
            let what = replaced ? "replaced by another directory" : "removed"
            #expect(refused?.message.contains("the state directory \(path) was \(what) while the daemon ran") == true)
            #expect(FileManager.default.fileExists(atPath: path) == replaced, "made again")
            #expect(Files.list(path).isEmpty, "written into the directory now at its path")
        }
    }

    @Test("nothing is recorded while another daemon holds the state directory")
    func recordsOnlyUnderTheLock() throws {
        let path = self.scratch.file("state")
        try Files.write("in the way", to: path)
        let lock = try StateDirectoryLock.acquire(path)
        try FileManager.default.removeItem(atPath: path)
        let other = try StateDirectoryLock.acquire(path)
        let store = ServedSchemaStore(stateDirectory: path, lock: lock)
        let refused = #expect(throws: StorageError.self) { try store.record(["network": Array("{}".utf8)]) }
        #expect(refused?.message.contains("is in use by another viper-settingsd") == true)
        #expect(Files.list(path).isEmpty)
        withExtendedLifetime(other) {}
    }
}

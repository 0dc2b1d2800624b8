import Foundation
import SettingsAPI
import Testing
import ViperSettings
import ViperStorage
import ViperTestSupport

/// Writing: journal appends, group commit, no-op updates, compaction, the files people read, failures.
@Suite("JSONFileRepository writes")
struct JSONFileRepositoryWriteTests {
    let scratch = Scratch()

    @Test("an update appends one compact journal line and creates the directory when missing")
    func appendsLines() async throws {
        let directory = self.scratch.file("nested/state")
        let repository = makeRepository(directory)
        _ = try await repository.update(module: "network") { _ in
            LocalChange(set: ["proxy.port": .int(8080)], remove: ["proxy.mode"], revision: 8)
        }
        _ = try await repository.update(module: "network") { _ in
            LocalChange(set: ["proxy.mode": .string("auto")], revision: 9)
        }
        #expect(Files.list(directory) == ["network.journal"])
        let text = try Files.read("\(directory)/network.journal")
        #expect(
            text == #"{"revision":8,"set":{"proxy.port":8080},"remove":["proxy.mode"]}"# + "\n"
                + #"{"revision":9,"set":{"proxy.mode":"auto"},"remove":[]}"# + "\n"
        )
        // The first append syncs the journal and the new file's directory, the second only the journal.
        #expect(repository.syncCount == 3)
    }

    @Test("a change's record is written in its journal line and read back with the history")
    func recordInJournal() async throws {
        let repository = makeRepository(self.scratch.path)
        let record = ChangeRecord(
            revision: 1,
            cause: .client(uid: 1000, pid: 42),
            changes: [
                SettingChange(path: "proxy.mode", old: .string("none"), oldLayer: .default, new: nil, layer: nil),
                SettingChange(
                    path: "proxy.port",
                    old: .int(3128),
                    oldLayer: .default,
                    new: .int(8080),
                    layer: .local
                ),
            ]
        )
        _ = try await repository.update(module: "network") { _ in
            LocalChange(set: ["proxy.port": .int(8080), "proxy.host": .string("a\"b")], revision: 1, record: record)
        }
        #expect(
            try Files.read(self.scratch.file("network.journal"))
                == #"{"revision":1,"set":{"proxy.host":"a\"b","proxy.port":8080},"remove":[],"#
                + #""cause":{"pid":42,"uid":1000},"changes":[{"key":"proxy.mode","old":"none","oldLayer":"default"},"#
                + #"{"key":"proxy.port","layer":"local","new":8080,"old":3128,"oldLayer":"default"}]}"# + "\n"
        )
        let reopened = try await makeRepository(self.scratch.path).state(of: "network")
        #expect(reopened.history.records == [record])
        #expect(reopened.local == ["proxy.port": .int(8080), "proxy.host": .string("a\"b")])
    }

    @Test("a nil decision touches no file")
    func noOpTouchesNothing() async throws {
        let repository = makeRepository(self.scratch.path)
        _ = try await repository.update(module: "network") { _ in nil }
        #expect(Files.list(self.scratch.path).isEmpty)
        #expect(repository.syncCount == 0)

        _ = try await repository.update(module: "network") { _ in LocalChange(set: ["proxy.port": .int(1)], revision: 1)
        }
        await repository.close()
        _ = try await repository.update(module: "network") { _ in LocalChange(set: ["proxy.port": .int(2)], revision: 2)
        }
        let before = try Files.fingerprint(self.scratch.path)
        let syncs = repository.syncCount
        #expect(before.keys.sorted() == ["network.journal", "network.json"])
        try await Task.sleep(for: .milliseconds(20))
        for _ in 0..<10 { _ = try await repository.update(module: "network") { _ in nil } }
        #expect(try Files.fingerprint(self.scratch.path) == before)
        #expect(repository.syncCount == syncs)
    }

    @Test("200 concurrent updates over 2 modules share syncs and are all durable")
    func groupCommit() async throws {
        let repository = makeRepository(self.scratch.path)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                let module = index.isMultiple(of: 2) ? "network" : "display"
                group.addTask {
                    _ = try await repository.update(module: module) { state in
                        LocalChange(set: ["items.u\(index)": .int(Int64(index))], revision: state.revision + 1)
                    }
                }
            }
            try await group.waitForAll()
        }
        let syncs = repository.syncCount
        #expect(syncs < 100, "\(syncs) syncs for 200 updates")
        // Reopened without close: everything acknowledged is in the journals.
        let reopened = makeRepository(self.scratch.path)
        for (module, parity) in [("network", 0), ("display", 1)] {
            let state = try await reopened.state(of: module)
            #expect(state.revision == 100)
            #expect(state.local.count == 100)
            for index in stride(from: parity, to: 200, by: 2) {
                #expect(state.local["items.u\(index)"] == .int(Int64(index)))
            }
        }
    }

    @Test("after threshold + 1 updates the journal is compacted into the snapshot")
    func compaction() async throws {
        let repository = makeRepository(self.scratch.path, compactAfterRecords: 10)
        for step in 1...11 {
            _ = try await repository.update(module: "network") { _ in
                LocalChange(
                    set: ["proxy.port": .int(Int64(step)), "proxy.k\(step % 3)": .bool(true)],
                    revision: Int64(step)
                )
            }
        }
        // The journal keeps only the line that carries the snapshot's revision.
        #expect(try Files.read(self.scratch.file("network.journal")) == #"{"revision":11,"compacted":true}"# + "\n")
        let snapshot = try JSONValue(parsing: Files.read(self.scratch.file("network.json")))
        #expect(snapshot["revision"] == 11)
        #expect(snapshot["local"] == ["proxy.port": 11, "proxy.k0": true, "proxy.k1": true, "proxy.k2": true])
        _ = try await repository.update(module: "network") { _ in LocalChange(remove: ["proxy.k0"], revision: 12) }
        #expect(try Files.journalLines(self.scratch.file("network.journal")).count == 2)
        let reopened = try await makeRepository(self.scratch.path).state(of: "network")
        #expect(
            reopened
                == ModuleState(
                    revision: 12,
                    local: ["proxy.port": .int(11), "proxy.k1": .bool(true), "proxy.k2": .bool(true)]
                )
        )
        #expect(!Files.list(self.scratch.path).contains { $0.hasSuffix(".tmp") })
    }

    @Test("the snapshot is pretty JSON a person can read")
    func readableSnapshot() async throws {
        let repository = makeRepository(self.scratch.path)
        _ = try await repository.update(module: "network") { _ in
            LocalChange(
                set: [
                    "proxy.port": .int(8080), "proxy.mode": .string("manual"),
                    "proxy.ignore": .strings(["localhost", "::1"]),
                ],
                revision: 7
            )
        }
        await repository.close()
        let text = try Files.read(self.scratch.file("network.json"))
        #expect(
            text == """
                {
                  "format": 1,
                  "module": "network",
                  "revision": 7,
                  "local": {
                    "proxy.ignore": [
                      "localhost",
                      "::1"
                    ],
                    "proxy.mode": "manual",
                    "proxy.port": 8080
                  },
                  "history": {
                    "floor": 7,
                    "records": []
                  }
                }

                """
        )
        #expect(try Files.read(self.scratch.file("network.journal")) == #"{"revision":7,"compacted":true}"# + "\n")
    }

    @Test("close compacts, and the repository goes on working after it")
    func closeCompacts() async throws {
        let repository = makeRepository(self.scratch.path)
        for revision in Int64(1)...3 {
            _ = try await repository.update(module: "network") { _ in
                LocalChange(set: ["proxy.port": .int(revision)], revision: revision)
            }
        }
        _ = try await repository.update(module: "display") { _ in
            LocalChange(set: ["screen.scale": .double(1.5)], revision: 1)
        }
        await repository.close()
        #expect(try Files.read(self.scratch.file("network.journal")) == #"{"revision":3,"compacted":true}"# + "\n")
        #expect(try Files.read(self.scratch.file("display.journal")) == #"{"revision":1,"compacted":true}"# + "\n")
        #expect(try JSONValue(parsing: Files.read(self.scratch.file("network.json")))["revision"] == 3)
        _ = try await repository.update(module: "network") { _ in LocalChange(set: ["proxy.port": .int(4)], revision: 4)
        }
        let reopened = makeRepository(self.scratch.path)
        #expect(try await reopened.state(of: "network") == ModuleState(revision: 4, local: ["proxy.port": .int(4)]))
        #expect(
            try await reopened.state(of: "display") == ModuleState(revision: 1, local: ["screen.scale": .double(1.5)])
        )
    }

    @Test("a failed batch fails every queued write of its module and rolls the state back to the durable one")
    func failedBatchFailsQueuedWrites() async throws {
        let repository = makeRepository(self.scratch.path)
        #expect(try await repository.state(of: "network") == .empty)
        try FileManager.default.createDirectory(
            atPath: self.scratch.file("network.journal"),
            withIntermediateDirectories: true
        )
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<20 {
                group.addTask {
                    let result = try? await repository.update(module: "network") { state in
                        LocalChange(set: ["items.u\(index)": .int(1)], revision: state.revision + 1)
                    }
                    return result != nil
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.allSatisfy { !$0 })
        #expect(try await repository.state(of: "network") == .empty)
    }
}

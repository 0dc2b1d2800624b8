import Foundation
import Glibc
import SettingsAPI
import Testing
import ViperSettings
import ViperStorage
import ViperTestSupport

/// State files the daemon could not have written, and files it cannot write for a while: a huge file is not read
/// into memory, a fold that fails is not tried again at every write, a link planted at run time is named as one.
@Suite("JSONFileRepository file limits")
struct JSONFileRepositoryFileLimitTests {
    let scratch = Scratch()

    @Test("a snapshot larger than 256 MiB is not read: the module refuses writes naming it, the file stays")
    func hugeSnapshotIsNotRead() async throws {
        let snapshot = self.scratch.file("power.json")
        // Sparse: it takes no room, but its size is what a reader would have to hold.
        let descriptor = open(snapshot, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        #expect(descriptor >= 0)
        #expect(ftruncate(descriptor, 257 << 20) == 0)
        close(descriptor)
        let recorder = LogRecorder()
        let repository = makeRepository(self.scratch.path, recorder: recorder)
        let error = await #expect(throws: StorageError.self) {
            try await repository.update(module: "power") {
                LocalChange(set: ["idle.a": .int(1)], revision: $0.revision + 1)
            }
        }
        #expect(
            error?.message.contains("\(snapshot) is larger than 256 MiB, more than a state file of its module can be")
                == true,
            "\(String(describing: error))"
        )
        #expect(
            recorder.messages(at: .error).contains {
                $0.contains("\(snapshot) is larger than 256 MiB, more than a state file of its module can be")
            }
        )
        #expect(Files.exists(snapshot), "a file the daemon cannot read is left for the admin")
        // Among the problems status and systemd's STATUS= report.
        let problems = await repository.problems(modules: ["network", "power"])
        #expect(problems.count == 1 && problems.first?.message.contains("module 'power' refuses writes") == true)
        #expect(problems.first?.message.contains("larger than 256 MiB") == true, "\(problems)")
        // Other modules are served and written.
        _ = try await repository.update(module: "network") { _ in LocalChange(set: ["proxy.port": .int(2)], revision: 1)
        }
        // Moved out of the way: the module works again.
        try FileManager.default.removeItem(atPath: snapshot)
        let after = try await repository.update(module: "power") {
            LocalChange(set: ["idle.a": .int(1)], revision: $0.revision + 1)
        }
        #expect(after.after.local["idle.a"] == .int(1))
        await repository.close()
    }

    @Test("a fold into the snapshot that fails is tried again after another full journal, not at every write")
    func failedFoldIsNotRetriedAtEveryWrite() async throws {
        let recorder = LogRecorder()
        let repository = JSONFileRepository(
            directory: self.scratch.path,
            threadPool: .singleton,
            logger: recorder.logger,
            compactAfterBytes: 4096
        )
        _ = try await repository.update(module: "network") { _ in LocalChange(set: ["items.k": .int(0)], revision: 1) }
        // The snapshot's temporary name taken by a directory: the snapshot cannot be written, the journal can.
        let blocker = self.scratch.file(".network.json.tmp")
        try FileManager.default.createDirectory(atPath: blocker, withIntermediateDirectories: false)
        for index in 1...60 {
            _ = try await repository.update(module: "network") {
                LocalChange(
                    set: ["items.k\(index % 10)": .string("\(index) " + String(repeating: "x", count: 200))],
                    revision: $0.revision + 1
                )
            }
        }
        // 60 lines of ~280 bytes pass 4 KiB about 4 times: a fold is tried at each, not at each of ~45 writes.
        let failures = recorder.messages(at: .error).count { $0.contains("Could not write the snapshot of network") }
        #expect((1...5).contains(failures), "\(failures) failed folds logged")
        // Nothing is lost meanwhile; once the snapshot can be written, the journal is folded again.
        try FileManager.default.removeItem(atPath: blocker)
        for index in 61...80 {
            _ = try await repository.update(module: "network") {
                LocalChange(
                    set: ["items.k\(index % 10)": .string("\(index) " + String(repeating: "x", count: 200))],
                    revision: $0.revision + 1
                )
            }
        }
        let journal = try Files.read(self.scratch.file("network.journal"))
        #expect(journal.utf8.count < 8192, "the journal was not folded: \(journal.utf8.count) bytes")
        let reopened = try await makeRepository(self.scratch.path).state(of: "network")
        #expect(reopened.revision == 81)
        #expect(reopened.local["items.k0"] == .string("80 " + String(repeating: "x", count: 200)))
        await repository.close()
    }

    @Test(
        "a journal replaced by a symbolic link while the daemon runs: the write fails naming the link, nothing goes through it"
    )
    func journalLinkedAtRunTime() async throws {
        let repository = makeRepository(self.scratch.path)
        _ = try await repository.update(module: "display") { _ in
            LocalChange(set: ["output.scale": .double(1)], revision: 1)
        }
        let journal = self.scratch.file("display.journal")
        let elsewhere = self.scratch.file("elsewhere.journal")
        try Files.write("", to: elsewhere)
        try FileManager.default.removeItem(atPath: journal)
        try FileManager.default.createSymbolicLink(atPath: journal, withDestinationPath: elsewhere)
        let error = await #expect(throws: StorageError.self) {
            try await repository.update(module: "display") {
                LocalChange(set: ["output.scale": .double(2)], revision: $0.revision + 1)
            }
        }
        #expect(error?.message.contains("\(journal) is a symbolic link (to \(elsewhere)), expected a file") == true)
        #expect(try Files.read(elsewhere).isEmpty, "nothing is written through the link")
    }
}

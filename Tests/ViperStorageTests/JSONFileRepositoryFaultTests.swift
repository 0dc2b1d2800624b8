import Foundation
import Testing
import ViperSettings
import ViperStorage
import ViperTestSupport

/// Faults of the disk: a write reported as failed leaves no trace, a module recovers by itself, revisions read from
/// disk never trap.
@Suite("JSONFileRepository faults")
struct JSONFileRepositoryFaultTests {
    let scratch = Scratch()

    /// A 100-byte value, so that a batch of writes crosses a page of the full tmpfs.
    static func value(_ index: Int) -> SettingValue {
        .string("value \(index) " + String(repeating: "x", count: 90))
    }

    @Test(
        "on a full disk, a write reported as failed is not served after a restart, and the revision stays",
        .enabled(if: FullDisk.isAvailable, "needs root to mount a tmpfs")
    )
    func fullDiskLeavesNoTrace() async throws {
        let disk = try FullDisk()
        let directory = "\(disk.path)/state"
        let recorder = LogRecorder()
        let repository = makeRepository(directory, recorder: recorder)
        // About 2 KiB into the journal's page: the next batches find room for a few lines, not for all.
        for index in 0..<20 {
            _ = try await repository.update(module: "network") {
                LocalChange(set: ["items.warm\(index)": .int(Int64(index))], revision: $0.revision + 1)
            }
        }
        try disk.fill()
        let outcomes = await withTaskGroup(of: (String, Int64?).self) { group in
            for index in 0..<60 {
                group.addTask {
                    let key = "items.k\(index)"
                    let result = try? await repository.update(module: "network") {
                        LocalChange(set: [key: Self.value(index)], revision: $0.revision + 1)
                    }
                    return (key, result?.after.revision)
                }
            }
            return await group.reduce(into: [String: Int64?]()) { $0[$1.0] = $1.1 }
        }
        let failed = outcomes.filter { $0.value == nil }.map(\.key)
        #expect(!failed.isEmpty, "the disk should have been full")
        let acknowledged = outcomes.compactMapValues { $0 }
        let highest = acknowledged.values.max() ?? 20
        #expect(try await repository.state(of: "network").revision == highest)
        // Logged once per run of failures: an error, then a notice should a smaller batch fit again.
        #expect(recorder.messages(at: .error).count == recorder.messages(at: .notice).count + 1)

        // A write that cannot fit (a new page of the journal) while the disk is full: the module's writes are failing,
        // as status says, until one succeeds.
        try disk.fill()
        let big = String(repeating: "x", count: 8192)
        _ = try? await repository.update(module: "network") {
            LocalChange(set: ["items.big": .string(big)], revision: $0.revision + 1)
        }
        let failing = await repository.failingWrites()
        #expect(failing.count == 1 && failing.first?.errno == ENOSPC, "\(failing)")

        // A restart (no close: as after a crash) serves the acknowledged writes, none of the failed ones.
        disk.free()
        let restarted = try await makeRepository(directory).state(of: "network")
        for key in failed { #expect(restarted.local[key] == nil, "\(key) failed but came back") }
        for key in acknowledged.keys { #expect(restarted.local[key] != nil, "\(key) was acknowledged but is lost") }
        #expect(restarted.revision == highest)

        // The module recovers by itself once there is room again, and says so.
        let after = try await repository.update(module: "network") {
            LocalChange(set: ["items.again": .int(1)], revision: $0.revision + 1)
        }
        #expect(after.after.revision == highest + 1)
        #expect(recorder.messages(at: .notice).contains { $0.contains("works again") })
        #expect(await repository.failingWrites().isEmpty, "the write that succeeded ends it")
        let reopened = try await makeRepository(directory).state(of: "network")
        #expect(reopened.local["items.again"] == .int(1) && reopened.revision == highest + 1)
        await repository.close()
    }

    @Test(
        "on a file system mounted read-only, a module without files says so and how to fix it, then writes once fixed",
        .enabled(if: FullDisk.isAvailable, "needs root to mount a tmpfs")
    )
    func readOnlyFirstWrite() async throws {
        let disk = try FullDisk()
        let directory = "\(disk.path)/state"
        // The state directory exists, with no file of the module in it (nothing open: the file system can be
        // remounted).
        #expect(mkdir(directory, 0o755) == 0)
        let repository = makeRepository(directory)
        try disk.remount(readOnly: true)
        let error = await #expect(throws: StorageError.self) {
            try await repository.update(module: "updates") {
                LocalChange(set: ["policy.check-interval": .int(5)], revision: $0.revision + 1)
            }
        }
        #expect(error?.message.contains("updates.journal") == true, "\(String(describing: error))")
        #expect(
            error?.message.hasSuffix("its file system is mounted read-only (remount it read-write)") == true,
            "\(String(describing: error))"
        )
        try disk.remount(readOnly: false)
        let after = try await repository.update(module: "updates") {
            LocalChange(set: ["policy.check-interval": .int(5)], revision: $0.revision + 1)
        }
        #expect(after.after.revision == 1)
    }

    @Test(
        "files read but not writable (mounted read-only) are served, watchers included; writes are refused",
        .enabled(if: FullDisk.isAvailable, "needs root to mount a tmpfs")
    )
    func readOnlyFilesAreWatched() async throws {
        let disk = try FullDisk()
        let directory = "\(disk.path)/state"
        let writer = makeRepository(directory)
        _ = try await writer.update(module: "network") {
            LocalChange(set: ["proxy.port": .int(5555)], revision: $0.revision + 1)
        }
        await writer.close()
        try disk.remount(readOnly: true)
        defer { try? disk.remount(readOnly: false) }
        let repository = makeRepository(directory)
        #expect(try await repository.state(of: "network").local["proxy.port"] == .int(5555))
        #expect(await repository.unusableState(of: "network") == nil, "its values are what the files hold")
        let refusal = await repository.writeRefusal(of: "network")
        #expect(refusal.map { "\($0)" }?.contains("mounted read-only") == true, "\(String(describing: refusal))")
        // A file that cannot be read at all: what is served is not all it holds, and watchers are not told it.
        try disk.remount(readOnly: false)
        try FileManager.default.createDirectory(atPath: "\(directory)/power.json", withIntermediateDirectories: false)
        #expect(await makeRepository(directory).unusableState(of: "power") != nil)
    }

    @Test(
        "on a full disk, a failed first write of a module leaves no journal behind",
        .enabled(if: FullDisk.isAvailable, "needs root to mount a tmpfs")
    )
    func fullDiskFirstWriteLeavesNoJournal() async throws {
        let disk = try FullDisk()
        let directory = "\(disk.path)/state"
        let repository = makeRepository(directory)
        _ = try await repository.update(module: "network") {
            LocalChange(set: ["proxy.port": .int(1)], revision: $0.revision + 1)
        }
        try disk.fill()
        for _ in 0..<2 {
            await #expect(throws: StorageError.self) {
                try await repository.update(module: "updates") {
                    LocalChange(set: ["policy.check-interval": .int(5)], revision: $0.revision + 1)
                }
            }
            #expect(!Files.exists("\(directory)/updates.journal"), "a failed write leaves nothing behind")
        }
        #expect(try await repository.state(of: "updates").revision == 0)
        disk.free()
        let after = try await repository.update(module: "updates") {
            LocalChange(set: ["policy.check-interval": .int(5)], revision: $0.revision + 1)
        }
        #expect(after.after.revision == 1)
        #expect(try await makeRepository(directory).state(of: "updates").local["policy.check-interval"] == .int(5))
        await repository.close()
    }

    @Test(
        "a corrupt snapshot whose repair cannot be written (full disk) stays in place: the revision never goes back",
        .enabled(if: FullDisk.isAvailable, "needs root to mount a tmpfs")
    )
    func fullDiskRepairKeepsTheRevisionFloor() async throws {
        let disk = try FullDisk()
        let directory = "\(disk.path)/state"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let snapshot = "\(directory)/network.json"
        try Files.write(
            #"{"format": 1, "module": "network", "revision": 50, "local": {"proxy.port": 1}}garbage"#,
            to: snapshot
        )
        try disk.fill()
        let recorder = LogRecorder()
        let repository = makeRepository(directory, recorder: recorder)
        #expect(try await repository.state(of: "network").revision == 51)
        await #expect(throws: StorageError.self) {
            try await repository.update(module: "network") {
                LocalChange(set: ["proxy.port": .int(9)], revision: $0.revision + 1)
            }
        }
        #expect(Files.exists(snapshot), "the corrupt snapshot stays until its repair is durable")
        #expect(!Files.exists("\(snapshot).corrupt-\(testTimestamp)"))
        #expect(recorder.messages(at: .error).contains { $0.contains("stays in place") })
        // A restart meanwhile finds the same floor.
        #expect(try await makeRepository(directory).state(of: "network").revision == 51)

        disk.free()
        let after = try await repository.update(module: "network") {
            LocalChange(set: ["proxy.port": .int(9)], revision: $0.revision + 1)
        }
        #expect(after.after.revision == 52, "revision \(after.after.revision) after 51 was served")
        #expect(Files.exists("\(snapshot).corrupt-\(testTimestamp)"))
        let restarted = try await makeRepository(directory).state(of: "network")
        #expect(restarted.revision == 52 && restarted.local["proxy.port"] == .int(9))
        await repository.close()
    }

    @Test("a module at the highest revision refuses writes with a clear error instead of crashing")
    func highestRevision() async throws {
        try Files.write(
            #"{"format": 1, "module": "network", "revision": 9223372036854775807, "local": {"proxy.port": 1}}"#,
            to: self.scratch.file("network.json")
        )
        let recorder = LogRecorder()
        let repository = makeRepository(self.scratch.path, recorder: recorder)
        #expect(try await repository.state(of: "network").revision == .max)
        let refusal = await repository.writeRefusal(of: "network")
        #expect((refusal as? StorageError)?.message.contains("highest there is") == true, "known before writing")
        let error = await #expect(throws: StorageError.self) {
            try await repository.update(module: "network") {
                LocalChange(set: ["proxy.port": .int(2)], revision: $0.revision + 1)
            }
        }
        #expect(error?.message.contains("9223372036854775807") == true)
        #expect(error?.message.contains("refuses writes") == true)
        await #expect(throws: StorageError.self) {
            try await repository.updateRemote(module: "network") {
                RemoteChange(recommended: [:], mandatory: ["proxy.port": .int(3)], revision: $0.revision + 1)
            }
        }
        #expect(recorder.messages(at: .error).contains { $0.contains("highest there is") })
        #expect(try await repository.state(of: "network").local == ["proxy.port": .int(1)])
        // Among the problems status and systemd's STATUS= report, as files of the wrong kind are.
        let problems = await repository.problems(modules: ["display", "network"])
        #expect(problems.map(\.message).filter { $0.contains("module 'network' refuses writes") }.count == 1)
        #expect(problems.count == 1, "\(problems)")
    }

    @Test("a snapshot whose revision does not fit 64 bits is set aside and the module refuses writes: none is above it")
    func revisionBeyond64Bits() async throws {
        try Files.write(
            #"{"format": 1, "module": "network", "revision": 99999999999999999999, "local": {"proxy.port": 1}}"#,
            to: self.scratch.file("network.json")
        )
        let repository = makeRepository(self.scratch.path)
        #expect(try await repository.state(of: "network").revision == .max, "the revision never goes back")
        await #expect(throws: StorageError.self) {
            try await repository.update(module: "network") {
                LocalChange(set: ["proxy.port": .int(2)], revision: $0.revision + 1)
            }
        }
        #expect(Files.exists(self.scratch.file("network.json.corrupt-\(testTimestamp)")))
    }

    @Test("a revision in the journal above the snapshot's, or a huge one, never traps nor lowers the revision")
    func journalRevisions() async throws {
        try Files.write(
            #"{"format": 1, "module": "network", "revision": 7, "local": {}}"#,
            to: self.scratch.file("network.json")
        )
        // A stale record (from before the snapshot) must not take the revision back; nor may a record whose
        // revision is below the one before it (the journal is set aside from there, the module goes on above).
        try Files.write(
            journalLine(revision: 3, set: ["proxy.port": 3]) + journalLine(revision: 8, set: ["proxy.mode": "auto"])
                + journalLine(revision: 5, remove: ["proxy.mode"]),
            to: self.scratch.file("network.journal")
        )
        let state = try await makeRepository(self.scratch.path).state(of: "network")
        #expect(state.revision >= 8)
        #expect(state.local["proxy.mode"] == .string("auto"))
    }

    @Test("a write failure is retried on the next write, logged once, and its recovery logged")
    func retryAfterFailure() async throws {
        let recorder = LogRecorder()
        let repository = makeRepository(self.scratch.path, recorder: recorder)
        _ = try await repository.update(module: "network") { _ in LocalChange(set: ["proxy.port": .int(1)], revision: 1)
        }
        await repository.close()
        // Once loaded, a directory where the journal should be: opening it for appending fails.
        try FileManager.default.removeItem(atPath: self.scratch.file("network.journal"))
        try FileManager.default.createDirectory(
            atPath: self.scratch.file("network.journal"),
            withIntermediateDirectories: false
        )
        for _ in 0..<3 {
            let failure = await #expect(throws: StorageError.self) {
                try await repository.update(module: "network") { _ in
                    LocalChange(set: ["proxy.port": .int(2)], revision: 2)
                }
            }
            #expect(failure?.message.contains(self.scratch.file("network.journal")) == true)
            #expect(failure?.message.contains("Is a directory") == true)
        }
        #expect(recorder.messages(at: .error).count == 1)
        #expect(try await repository.state(of: "network") == ModuleState(revision: 1, local: ["proxy.port": .int(1)]))
        try FileManager.default.removeItem(atPath: self.scratch.file("network.journal"))
        _ = try await repository.update(module: "network") { _ in LocalChange(set: ["proxy.port": .int(3)], revision: 2)
        }
        #expect(recorder.messages(at: .notice).count == 1)
        let reopened = try await makeRepository(self.scratch.path).state(of: "network")
        #expect(reopened.local["proxy.port"] == .int(3) && reopened.revision == 2)
    }
}

import Foundation
import Synchronization
import Testing
import ViperSettings
import ViperStorage
import ViperTestSupport

/// One daemon per state directory: the lock is taken once, refused while held, free again once released.
@Suite("State directory lock")
struct StateDirectoryLockTests {
    let scratch = Scratch()

    @Test("the directory is created and locked; a second lock is refused, naming it, until the first is released")
    func exclusive() async throws {
        let path = self.scratch.newDirectory()
        var first: StateDirectoryLock? = try StateDirectoryLock.acquire(path)
        #expect(first?.isHeld == true)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(Files.list(path).isEmpty, "the lock adds no file to the directory")
        let refused = #expect(throws: StorageError.self) { try StateDirectoryLock.acquire(path) }
        #expect(refused?.message.hasPrefix("the state directory \(path) is in use by another viper-settingsd") == true)
        first = nil
        // Released: free again. Another test of this process that is spawning a child at this moment gives that
        // child a copy of every descriptor until its `exec` closes them, the lock's too; so wait, briefly.
        var again: StateDirectoryLock?
        #expect(
            await Eventually.wait {
                again = try? StateDirectoryLock.acquire(path)
                return again != nil
            }
        )
        #expect(again?.path == path && again?.isHeld == true)
    }

    @Test("a state directory that is a file is left to the repository to report: not locked, no error")
    func notADirectory() throws {
        let path = self.scratch.file("state")
        try Files.write("not a directory", to: path)
        let lock = try StateDirectoryLock.acquire(path)
        #expect(!lock.isHeld)
        #expect(lock.heldOrTaken()?.message == "open \(path): Not a directory")
    }

    @Test(
        "a daemon that could not lock its directory at start writes only once it takes the lock, never beside another"
    )
    func writesTakeTheLock() async throws {
        let path = self.scratch.file("state")
        try Files.write("in the way", to: path)
        let first = try StateDirectoryLock.acquire(path)
        #expect(!first.isHeld)
        let repository = JSONFileRepository(
            directory: path,
            threadPool: .singleton,
            logger: LogRecorder().logger,
            stateLock: first
        )
        // The culprit is moved away, and a second daemon starts on the directory: it creates it and locks it.
        try FileManager.default.removeItem(atPath: path)
        var second: StateDirectoryLock? = try StateDirectoryLock.acquire(path)
        #expect(second?.isHeld == true)
        let refused = await #expect(throws: StorageError.self) {
            _ = try await repository.update(module: "network") { _ in
                LocalChange(set: ["proxy.port": .int(8080)], revision: 1)
            }
        }
        #expect(
            refused?.message.contains("is in use by another viper-settingsd") == true,
            "\(String(describing: refused))"
        )
        #expect(Files.list(path).isEmpty, "nothing written in the other daemon's directory")
        second = nil
        // Released (a child another test is spawning may hold a copy of the descriptor until its `exec`: retried;
        // a refused write leaves nothing behind).
        let written = await Eventually.wait {
            (try? await repository.update(module: "network") { _ in
                LocalChange(set: ["proxy.port": .int(8080)], revision: 1)
            }) != nil
        }
        #expect(written)
        #expect(Files.list(path) == ["network.journal"])
        #expect(first.isHeld)
        #expect(throws: StorageError.self) { try StateDirectoryLock.acquire(path) }
        withExtendedLifetime(second) {}
    }

    @Test(
        "a daemon that takes the lock late reads its modules again: what another daemon acknowledged meanwhile is kept"
    )
    func lateLockReadsAgain() async throws {
        let path = self.scratch.file("state")
        try Files.write("in the way", to: path)
        let first = try StateDirectoryLock.acquire(path)
        let feed = ChangeFeed()
        let repository = JSONFileRepository(
            directory: path,
            threadPool: .singleton,
            logger: LogRecorder().logger,
            feed: feed,
            stateLock: first
        )
        // Told once, when the lock is taken and the modules read again, before the write that took it goes on.
        let readAgain = Mutex<[Int64]>([])
        await repository.whenReadAgain {
            let revision = (try? await repository.state(of: "network").revision) ?? -1
            readAgain.withLock { $0.append(revision) }
        }
        try FileManager.default.removeItem(atPath: path)
        var second: StateDirectoryLock? = try StateDirectoryLock.acquire(path)
        // A refused write reads the module (nothing there yet); a watcher follows it.
        _ = await #expect(throws: StorageError.self) {
            try await repository.update(module: "network") { _ in
                LocalChange(set: ["proxy.port": .int(1001)], revision: 1)
            }
        }
        #expect(try await repository.state(of: "network").revision == 0)
        let subscription = feed.subscribe(modules: ["network"])
        // The other daemon acknowledges two writes, then stops.
        var other: JSONFileRepository? = JSONFileRepository(
            directory: path,
            threadPool: .singleton,
            logger: LogRecorder().logger,
            stateLock: second
        )
        for (revision, mode) in [(Int64(1), "auto"), (2, "manual")] {
            _ = try await other?.update(module: "network") { _ in
                LocalChange(set: ["proxy.mode": .string(mode)], revision: revision)
            }
        }
        await other?.close()
        // Stopped: its repository and lock are gone.
        (other, second) = (nil, nil)
        let written = await Eventually.wait {
            (try? await repository.update(module: "network") { state in
                LocalChange(set: ["proxy.port": .int(1003)], revision: state.revision + 1)
            }) != nil
        }
        #expect(written)
        #expect(readAgain.withLock { $0 } == [2], "once, with the other daemon's state, before the write")
        let state = try await repository.state(of: "network")
        #expect(state.revision == 3, "on top of the other daemon's revision 2, never below it")
        #expect(state.local == ["proxy.mode": .string("manual"), "proxy.port": .int(1003)])
        // Reopened from the files: the same.
        let reopened = JSONFileRepository(directory: path, threadPool: .singleton, logger: LogRecorder().logger)
        #expect(try await reopened.state(of: "network") == state)
        // Its watcher was told to start over from what the files hold (awaited only when the state was read again).
        guard written, state.revision == 3 else { return }
        #expect(await subscription.next() == .reset(module: "network", cause: .stateReloaded))
        // A later write does not read the files again.
        _ = try await repository.update(module: "network") { state in
            LocalChange(set: ["proxy.port": .int(1004)], revision: state.revision + 1)
        }
        #expect(readAgain.withLock { $0 } == [2])
    }

    @Test("a state directory that cannot be created is an error at start, naming it: not created later, unlocked")
    func cannotCreate() throws {
        let parent = self.scratch.file("parent")
        try Files.write("a file, not a directory", to: parent)
        let path = parent + "/state"
        let refused = #expect(throws: StorageError.self) { try StateDirectoryLock.acquire(path) }
        #expect(
            refused?.message.hasPrefix("cannot create the state directory \(path): ") == true,
            "\(String(describing: refused))"
        )
    }

    @Test(
        "a state directory below a symbolic link to nothing (a disk not mounted) or below /proc is an error naming it",
        arguments: ["link", "proc", "dangling"]
    )
    func parentThatCannotHoldIt(kind: String) throws {
        let path: String
        if kind == "dangling" {
            // The state directory itself a symbolic link to nothing.
            path = self.scratch.file("state")
            try #require(symlink(self.scratch.file("nowhere"), path) == 0)
        } else if kind == "link" {
            let link = self.scratch.file("not-mounted")
            try #require(symlink(self.scratch.file("nowhere"), link) == 0)
            path = link + "/viper-settings/state"
        } else {
            path = "/proc/viper-settings-test/state"
        }
        // It recursed for ever (`mkdir` said ENOENT for the path and EEXIST for its parent) until the stack ran out.
        let refused = #expect(throws: StorageError.self) { try StateDirectoryLock.acquire(path) }
        #expect(
            refused?.message.hasPrefix("cannot create the state directory \(path): ") == true,
            "\(String(describing: refused))"
        )
    }
}

import Foundation
import Testing
import ViperStorage
import ViperTestSupport

/// One daemon per state directory: the lock is taken once, refused while held, free again once released.
@Suite("State directory lock")
struct StateDirectoryLockTests {
    let scratch = Scratch()

    @Test("the directory is created and locked; a second lock is refused, naming it, until the first is released")
    func exclusive() throws {
        let path = self.scratch.newDirectory()
        var first = try StateDirectoryLock.acquire(path)
        #expect(first != nil)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(Files.list(path).isEmpty, "the lock adds no file to the directory")
        let refused = #expect(throws: StorageError.self) { try StateDirectoryLock.acquire(path) }
        #expect(refused?.message.hasPrefix("the state directory \(path) is in use by another viper-settingsd") == true)
        first = nil
        let again = try StateDirectoryLock.acquire(path)
        #expect(again?.path == path)
    }

    @Test("a state directory that is a file is left to the repository to report: no lock, no error")
    func notADirectory() throws {
        let path = self.scratch.file("state")
        try Files.write("not a directory", to: path)
        #expect(try StateDirectoryLock.acquire(path) == nil)
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
        arguments: ["link", "proc"]
    )
    func parentThatCannotHoldIt(kind: String) throws {
        let path: String
        if kind == "link" {
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

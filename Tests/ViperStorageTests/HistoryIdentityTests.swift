import Foundation
import Testing
import ViperSettings
import ViperStorage
import ViperTestSupport

/// `STATE/history`: the token every Watch cursor begins with.
@Suite("HistoryIdentity")
struct HistoryIdentityTests {
    let scratch = Scratch()

    @Test("made at the first start, durable and kept; a file that does not hold a token is replaced, saying so")
    func madeThenKept() throws {
        let directory = self.scratch.newDirectory()
        let first = HistoryIdentity.loadOrCreate(stateDirectory: directory, store: true)
        let token = try #require(first.token)
        #expect(WatchCursor.isHistory(token) && first.problem == nil)
        #expect(try Files.read("\(directory)/history") == token + "\n")
        #expect(HistoryIdentity.loadOrCreate(stateDirectory: directory, store: true).token == token)
        try Files.write("not a token\n", to: "\(directory)/history")
        let replaced = HistoryIdentity.loadOrCreate(stateDirectory: directory, store: true)
        #expect(replaced.token != nil && replaced.token != token)
        #expect(replaced.problem?.message.contains("does not hold a history token") == true)
        #expect(Files.list(directory) == ["history"], "no temporary file left")
    }

    @Test("a file that cannot be read (a directory, a symbolic link) is left as it is: no token until it can be")
    func unreadableIsKept() throws {
        let directory = self.scratch.newDirectory()
        try FileManager.default.createDirectory(atPath: "\(directory)/history", withIntermediateDirectories: true)
        let folder = HistoryIdentity.loadOrCreate(stateDirectory: directory, store: true)
        #expect(folder.token == nil)
        #expect(folder.problem?.message.contains("cursors name no history") == true, "\(String(describing: folder))")
        #expect(
            FileManager.default.fileExists(atPath: "\(directory)/history/")
                && Files.list("\(directory)/history").isEmpty
        )

        let linked = self.scratch.newDirectory()
        try FileManager.default.createDirectory(atPath: linked, withIntermediateDirectories: true)
        let target = self.scratch.file("elsewhere")
        try Files.write("0badc0de\n", to: target)
        #expect(symlink(target, "\(linked)/history") == 0)
        let link = HistoryIdentity.loadOrCreate(stateDirectory: linked, store: true)
        #expect(link.token == nil && link.problem?.message.contains("symbolic link") == true)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "\(linked)/history") == target)
        #expect(try Files.read(target) == "0badc0de\n")
    }

    @Test("without the directory's lock, a missing token is not made")
    func notMadeWithoutTheLock() throws {
        let directory = self.scratch.newDirectory()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        #expect(HistoryIdentity.loadOrCreate(stateDirectory: directory, store: false).token == nil)
        #expect(Files.list(directory).isEmpty)
    }
}

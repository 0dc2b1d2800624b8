import Foundation
import Glibc
import Testing
import ViperStorage
import ViperTestSupport

/// The copies of the schemas served are neither read nor written through a symbolic link: the daemon runs as root,
/// and whoever can write its state directory must not make it read or replace a file of root's.
@Suite("ServedSchemaStore: symbolic links")
struct ServedSchemaStoreLinkTests {
    let scratch = Scratch()

    /// A file of root's that no one else may read: `secret` at `path`, mode 0600.
    func victim(_ path: String, _ secret: String = "Root only") throws {
        try Files.write(secret, to: path)
        try #require(chmod(path, 0o600) == 0)
    }

    /// The content and mode of the file at `path` (not following a link).
    func contentAndMode(_ path: String) throws -> (String, mode_t) {
        let status = try #require(Files.linkStatus(path))
        #expect(status.st_mode & S_IFMT == S_IFREG)
        return (try Files.read(path), status.st_mode & 0o7777)
    }

    @Test("a schemas folder that is a symbolic link is not used: nothing is read from it or written into it")
    func folderLink() throws {
        let state = self.scratch.newDirectory()
        let victims = self.scratch.file("victims")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try self.victim("\(victims)/power.json")
        try self.victim("\(victims)/display.json", "{\"keys\":{}}")
        let before = try Files.fingerprint(victims)
        try #require(symlink(victims, "\(state)/schemas") == 0)

        let store = ServedSchemaStore(stateDirectory: state)
        let kept = store.readKept()
        #expect(kept.sources.isEmpty, "nothing read through the link")
        #expect(store.read().isEmpty)
        #expect(
            kept.problem?.message.contains(
                "\(state)/schemas is a symbolic link (to \(victims)), expected a directory"
            ) == true
        )

        let refused = #expect(throws: StorageError.self) {
            try store.record(
                ["display": Array("{}".utf8), "locale": Array("{}".utf8), "power": Array("{}".utf8)],
                kept: kept.sources
            )
        }
        #expect(refused?.message.contains("is a symbolic link") == true)
        #expect(try self.contentAndMode("\(victims)/power.json") == ("Root only", 0o600))
        #expect(try self.contentAndMode("\(victims)/display.json") == ("{\"keys\":{}}", 0o600))
        #expect(try Files.fingerprint(victims) == before, "nothing written, added or removed in the linked folder")
        #expect(Files.linkStatus("\(state)/schemas").map { $0.st_mode & S_IFMT == S_IFLNK } == true)
    }

    @Test("a schemas folder that is a file is not used, and the file is left as it is")
    func folderFile() throws {
        let state = self.scratch.newDirectory()
        try self.victim("\(state)/schemas")
        let store = ServedSchemaStore(stateDirectory: state)
        let problem = try #require(store.readKept().problem)
        #expect(problem.message.contains("\(state)/schemas is a regular file, expected a directory"))
        #expect(throws: StorageError.self) { try store.record(["power": Array("{}".utf8)]) }
        #expect(try self.contentAndMode("\(state)/schemas") == ("Root only", 0o600))
    }

    @Test(
        "a copy that is a symbolic link is not read (its module's copy is unusable), and is replaced, not written through"
    )
    func copyLink() throws {
        let state = self.scratch.newDirectory()
        let store = ServedSchemaStore(stateDirectory: state)
        try store.record(["network": Array("{}".utf8)])
        let secret = self.scratch.file("secret.json")
        try self.victim(secret, "{\"keys\":{\"Root\":1}}")
        try #require(symlink(secret, "\(store.path)/display.json") == 0)

        let kept = store.readKept()
        #expect(kept.problem == nil)
        #expect(kept.sources == ["network": Array("{}".utf8), "display": []], "the link's target is not read")
        let unreadable = try #require(kept.unreadable["display"])
        #expect(unreadable.message.contains("\(store.path)/display.json is a symbolic link (to \(secret))"))
        #expect(kept.unreadable["network"] == nil)

        try store.record(["network": Array("{}".utf8), "display": Array("{\"a\":1}".utf8)], kept: kept.sources)
        #expect(try self.contentAndMode(secret) == ("{\"keys\":{\"Root\":1}}", 0o600), "not written through")
        #expect(try self.contentAndMode("\(store.path)/display.json") == ("{\"a\":1}", 0o644), "the link replaced")
        #expect(store.read() == ["network": Array("{}".utf8), "display": Array("{\"a\":1}".utf8)])
    }

    @Test("a temporary file that is a symbolic link is not written through")
    func temporaryLink() throws {
        let state = self.scratch.newDirectory()
        let store = ServedSchemaStore(stateDirectory: state)
        try store.record(["network": Array("{}".utf8)])
        let secret = self.scratch.file("secret")
        try self.victim(secret)
        try #require(symlink(secret, "\(store.path)/.power.json.tmp") == 0)
        try store.record(["network": Array("{}".utf8), "power": Array("{\"b\":2}".utf8)])
        #expect(try self.contentAndMode(secret) == ("Root only", 0o600))
        #expect(store.read() == ["network": Array("{}".utf8), "power": Array("{\"b\":2}".utf8)])
        #expect(Files.list(store.path) == ["network.json", "power.json"])
    }

    @Test("a copy of a module no longer served that is a symbolic link is removed, not what it points to")
    func removedLink() throws {
        let state = self.scratch.newDirectory()
        let store = ServedSchemaStore(stateDirectory: state)
        try store.record(["network": Array("{}".utf8)])
        let secret = self.scratch.file("secret")
        try self.victim(secret)
        try #require(symlink(secret, "\(store.path)/power.json") == 0)
        try store.record(["network": Array("{}".utf8)])
        #expect(try self.contentAndMode(secret) == ("Root only", 0o600))
        #expect(Files.list(store.path) == ["network.json"])
    }
}

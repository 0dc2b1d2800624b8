import Foundation
import Glibc
import Testing
import ViperTestSupport

/// The daemon runs as root: whoever can write its state directory must not make it read or replace a file of root's
/// through a symbolic link in `STATE/schemas`.
@Suite("viper-settingsd: the copies of the schemas served are not used through links", .serialized)
struct ServedSchemaLinkTests {
    /// `secret` at `path`, mode 0600: a file of root's.
    static func victim(_ path: String, _ secret: String) throws {
        try Files.write(secret, to: path)
        try #require(chmod(path, 0o600) == 0)
    }

    static func contentAndMode(_ path: String) throws -> (String, mode_t) {
        let status = try #require(Files.linkStatus(path))
        #expect(status.st_mode & S_IFMT == S_IFREG)
        return (try Files.read(path), status.st_mode & 0o7777)
    }

    @Test("a schemas folder that is a link: nothing written into what it points to, logged, the daemon serves")
    func folderLink() throws {
        let daemon = try DaemonHarness()
        let state = daemon.stateDirectory.path
        let victims = daemon.root.appendingPathComponent("victims").path
        try Self.victim("\(victims)/power.json", "Root only")
        let before = try Files.fingerprint(victims)
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try #require(symlink(victims, "\(state)/schemas") == 0)

        try daemon.start()
        #expect(daemon.ctl(["get", "network.proxy.port"]).stdout == "3128\n", "served all the same")
        #expect(try Self.contentAndMode("\(victims)/power.json") == ("Root only", 0o600))
        #expect(try Files.fingerprint(victims) == before, "nothing written into the folder linked to")
        #expect(Files.list(victims) == ["power.json"])
        #expect(daemon.log.contains("\(state)/schemas is a symbolic link (to \(victims)), expected a directory"))
        #expect(daemon.stop() == 0)
    }

    @Test("a copy that is a link is not read (its module's watchers start over), and is replaced, the link itself")
    func copyLink() throws {
        let daemon = try DaemonHarness()
        let state = daemon.stateDirectory.path
        try daemon.start()
        #expect(daemon.stop() == 0)
        let copy = "\(state)/schemas/display.json"
        try #require(Files.exists(copy), "the copies are kept at the first start")
        let secret = daemon.root.appendingPathComponent("secret").path
        try Self.victim(secret, "Root only")
        try FileManager.default.removeItem(atPath: copy)
        try #require(symlink(secret, copy) == 0)

        try daemon.start()
        #expect(daemon.log.contains("\(copy) is a symbolic link (to \(secret))"), "\(daemon.log)")
        #expect(!daemon.log.contains("found 'R'"), "the file linked to is not read")
        #expect(try Self.contentAndMode(secret) == ("Root only", 0o600))
        #expect(Files.linkStatus(copy).map { $0.st_mode & S_IFMT == S_IFREG } == true, "the link replaced")
        #expect(daemon.stop() == 0)
    }
}

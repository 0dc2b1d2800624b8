import Glibc
import Testing
import ViperTestSupport

@testable import ViperIPC

@Suite("The socket file: made where only its server may change it, its mode set without following a link")
struct VarlinkSocketFileTests {
    @Test(
        "a link swapped in for the bound socket before its mode is set is not followed: the file it names keeps its mode"
    )
    func swappedLink() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let victim = directory.path + "/victim"
        let descriptor = open(victim, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        #expect(descriptor >= 0)
        close(descriptor)
        var file = try VarlinkSocketFile.prepare(path: directory.path + "/varlink.sock")
        #expect(file.bindPath != file.path)
        // What another user who may write the directory would do between `bind` and the mode change.
        #expect(symlink(victim, file.bindPath) == 0)
        #expect(throws: VarlinkServerError.self) { try file.publish() }
        var status = stat()
        #expect(stat(victim, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600, "mode \(String(status.st_mode & 0o777, radix: 8))")
    }

    @Test("a socket directory others may write is refused unless sticky; one of this user's is taken")
    func unsafeDirectory() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let open = directory.path + "/open"
        #expect(mkdir(open, 0o755) == 0 && chmod(open, 0o777) == 0)
        let refused = #expect(throws: VarlinkServerError.self) {
            try VarlinkSocketFile.prepare(path: open + "/varlink.sock")
        }
        #expect(refused.map { "\($0)" }?.contains("may be written by everyone (mode 777) and is not sticky") == true)
        let group = directory.path + "/group"
        #expect(mkdir(group, 0o755) == 0 && chmod(group, 0o775) == 0)
        #expect(throws: VarlinkServerError.self) { try VarlinkSocketFile.prepare(path: group + "/varlink.sock") }
        let sticky = directory.path + "/sticky"
        #expect(mkdir(sticky, 0o755) == 0 && chmod(sticky, 0o1777) == 0)
        _ = try VarlinkSocketFile.prepare(path: sticky + "/varlink.sock")
        _ = try VarlinkSocketFile.prepare(path: directory.path + "/varlink.sock")
    }

    @Test("a directory owned by another user is refused", .enabled(if: getuid() == 0, "needs root to chown"))
    func otherOwner() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let theirs = directory.path + "/theirs"
        #expect(mkdir(theirs, 0o755) == 0 && chown(theirs, 65534, 65534) == 0)
        let refused = #expect(throws: VarlinkServerError.self) {
            try VarlinkSocketFile.prepare(path: theirs + "/varlink.sock")
        }
        #expect(refused.map { "\($0)" }?.contains("belongs to uid 65534") == true)
    }
}

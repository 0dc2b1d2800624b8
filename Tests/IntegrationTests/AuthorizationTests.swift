import Foundation
import Testing

/// Who may write and sync, checked against the real daemon with settingsctl run as other users by `setpriv`:
/// groups come from the caller's credentials, and every denial is an audit entry.
@Suite("Authorization by the caller's credentials", .enabled(if: getuid() == 0, "acting as another user needs root"))
struct AuthorizationTests {
    /// A daemon serving one module, `shared`, whose writers are the members of `group`.
    private static func daemon(writerGroup group: String, extraArguments: [String] = []) throws -> DaemonHarness {
        let daemon = try DaemonHarness()
        let modules = daemon.root.appendingPathComponent("modules")
        try FileManager.default.createDirectory(at: modules, withIntermediateDirectories: true)
        let schema = """
            {"module": "shared", "title": "Shared", "description": "Written by a group",
             "writers": {"groups": ["\(group)"]},
             "sections": [{"id": "s", "title": "S", "items": [{"id": "v", "type": "string", "default": "a"}]}]}
            """
        try Data(schema.utf8).write(to: modules.appendingPathComponent("shared.json"))
        try daemon.start(extraArguments: ["--modules-dir", modules.path] + extraArguments)
        // Other users must reach the socket.
        chmod(daemon.root.path, 0o755)
        chmod(daemon.root.appendingPathComponent("run").path, 0o755)
        return daemon
    }

    /// settingsctl run by `setpriv` with `credentials` (e.g. `--reuid=65534 --regid=65534 --clear-groups`).
    private static func ctl(_ daemon: DaemonHarness, _ credentials: [String], _ arguments: [String]) -> CommandResult {
        let settingsctl = daemon.binDirectory.appendingPathComponent("settingsctl").path
        return DaemonHarness.run(
            ["/usr/bin/setpriv"] + credentials + [settingsctl, "--socket", daemon.socketPath] + arguments
        )
    }

    /// The name of group `gid`.
    private static func groupName(_ gid: gid_t) -> String? {
        guard let entry = getgrgid(gid), let name = entry.pointee.gr_name else { return nil }
        return String(cString: name)
    }

    /// A user listed as a member of a group in /etc/group, with that group: getgrouplist would count it.
    private static func listedMember() -> (user: String, uid: uid_t, gid: gid_t, group: String)? {
        let text = (try? String(contentsOfFile: "/etc/group", encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count == 4, let member = fields[3].split(separator: ",").first else { continue }
            guard let user = getpwnam(String(member)) else { continue }
            return (String(member), user.pointee.pw_uid, user.pointee.pw_gid, String(fields[0]))
        }
        return nil
    }

    @Test("a supplementary group the caller holds lets it write; the same caller without it is refused")
    func supplementaryGroupFromCredentials() throws {
        let gid: gid_t = 100
        let group = try #require(Self.groupName(gid), "gid 100 has no name")
        let daemon = try Self.daemon(writerGroup: group)
        let holding = Self.ctl(
            daemon,
            ["--reuid=65534", "--regid=65534", "--groups=\(gid)"],
            ["set", "shared.s.v", "b"]
        )
        #expect(holding.status == 0, "\(holding)")
        let dropped = Self.ctl(
            daemon,
            ["--reuid=65534", "--regid=65534", "--clear-groups"],
            ["set", "shared.s.v", "c"]
        )
        #expect(dropped.status == 7, "\(dropped)")
        #expect(daemon.ctl(["get", "shared.s.v"]).stdout == "b\n")
    }

    @Test("a non-writer's load lists every problem of the file, the permission among them, with the first's status")
    func nonWriterLoadListsEveryProblem() throws {
        let gid: gid_t = 100
        let group = try #require(Self.groupName(gid), "gid 100 has no name")
        let daemon = try Self.daemon(writerGroup: group)
        let file = daemon.root.appendingPathComponent("load.json")
        try Data(
            #"{"modules": {"shared": {"values": {"s.v": 80, "s.nope": true}}, "bogus": {"values": {}}}}"#.utf8
        ).write(to: file)
        chmod(file.path, 0o644)
        let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]
        let load = Self.ctl(daemon, nobody, ["load", file.path])
        #expect(load.status == 4, "the first problem is the unknown module: \(load)")
        let lines = load.stderr.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "settingsctl: nothing was loaded:",
                "  bogus: no such module",
                "  shared: permission denied for uid 65534: only root, members of \(group) may write it",
                "  shared.s.nope: the schema of shared has no such key",
                "  shared.s.v: 80: expected a string, found an integer",
            ],
            "\(load)"
        )
        try Data(#"{"modules": {"shared": {"values": {"s.v": "b"}}}}"#.utf8).write(to: file)
        let alone = Self.ctl(daemon, nobody, ["load", file.path])
        #expect(alone.status == 7, "\(alone)")
        #expect(alone.stderr.contains("shared: permission denied for uid 65534"), "\(alone)")
        #expect(daemon.ctl(["get", "shared.s.v"]).stdout == "a\n")
    }

    @Test("a member of a writer group in /etc/group who dropped its supplementary groups cannot write")
    func droppedGroupsCannotWrite() throws {
        guard let member = Self.listedMember() else { return }  // no such user on this machine
        let daemon = try Self.daemon(writerGroup: member.group)
        let ids = ["--reuid=\(member.uid)", "--regid=\(member.gid)"]
        let dropped = Self.ctl(daemon, ids + ["--clear-groups"], ["set", "shared.s.v", "b"])
        #expect(dropped.status == 7, "\(member.user) without its groups: \(dropped)")
        let holding = Self.ctl(daemon, ids + ["--init-groups"], ["set", "shared.s.v", "c"])
        #expect(holding.status == 0, "\(member.user) with its groups: \(holding)")
    }

    @Test("every denial is an audit entry at notice naming uid, pid, module, key and method")
    func denialsAreAudited() async throws {
        let daemon = try Self.daemon(writerGroup: "root")
        let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]
        #expect(Self.ctl(daemon, nobody, ["set", "shared.s.v", "b"]).status == 7)
        #expect(Self.ctl(daemon, nobody, ["reset", "shared"]).status == 7)
        let line = try await Self.logLine(of: daemon) { $0.contains("may not set shared.s.v") }
        #expect(line.contains("notice"), "\(line)")
        for field in ["client_uid=65534", "client_pid=", "module=shared", "key=shared.s.v", "method=Set"] {
            #expect(line.contains(field), "\(field) missing in: \(line)")
        }
        let reset = try await Self.logLine(of: daemon) { $0.contains("may not reset shared") }
        #expect(reset.contains("method=Reset") && reset.contains("client_uid=65534"), "\(reset)")
    }

    @Test("sync is a write: an unprivileged user gets permission denied, logged; root may sync")
    func syncNeedsAWriter() async throws {
        let refused = try LoopbackListener()
        let remote = "http://127.0.0.1:\(refused.port)/fleet.json"
        let daemon = try Self.daemon(writerGroup: "root", extraArguments: ["--remote", remote])
        let denied = Self.ctl(daemon, ["--reuid=65534", "--regid=65534", "--clear-groups"], ["sync"])
        #expect(denied.status == 7, "\(denied)")
        #expect(denied.stderr.contains("permission denied"), "\(denied)")
        let line = try await Self.logLine(of: daemon) { $0.contains("may not sync") }
        #expect(line.contains("method=Sync") && line.contains("client_uid=65534"), "\(line)")
        // Root may sync: the attempt runs (and fails, nothing listens there: exit 9, not 7).
        let root = daemon.ctl(["sync"])
        #expect(root.status == 9, "\(root)")
        #expect(!root.stderr.contains("permission denied"), "\(root)")
        withExtendedLifetime(refused) {}
    }

    /// Waits (up to a minute) for a line of the daemon's log that satisfies `matches`.
    private static func logLine(of daemon: DaemonHarness, where matches: (String) -> Bool) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if let line = daemon.log.split(separator: "\n").first(where: { matches(String($0)) }) {
                return String(line)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw HarnessError("no such line in the daemon's log:\n\(daemon.log)")
    }
}

/// A loopback TCP port bound and not listening, so that connections to it are refused, for a test's length.
final class LoopbackListener {
    let port: Int
    private let descriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard descriptor >= 0, bound else { throw HarnessError("cannot bind a loopback port") }
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(self.descriptor) }
}

import AsyncHTTPClient
import Foundation
import NIOCore
import ViperTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// One to three real `etcd` members on loopback, started by a test and stopped with SIGTERM.
final class EtcdCluster {
    /// One member's process and ports.
    struct Member {
        var name: String
        var clientPort: Int
        var peerPort: Int
        var process: Process?
    }

    /// Where `etcd` is installed (Debian package `etcd-server`).
    static let binary = "/usr/bin/etcd"

    /// Whether the tests can run: the binary is installed.
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: Self.binary) }

    private(set) var members: [Member]
    private let directory: URL

    /// The client ports, in member order.
    var clientPorts: [Int] { self.members.map(\.clientPort) }

    /// Reserves ports for `count` members (started by ``start()``); `clientPorts` reuses given client ports.
    init(members count: Int, clientPorts: [Int]? = nil) throws {
        self.directory = FileManager.default.temporaryDirectory.appendingPathComponent("etcd-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        self.members = try (0..<count).map { index in
            Member(
                name: "n\(index + 1)",
                clientPort: try clientPorts?[index] ?? LoopbackPort.free(),
                peerPort: try LoopbackPort.free()
            )
        }
    }

    deinit {
        self.stopAll()
        try? FileManager.default.removeItem(at: self.directory)
    }

    /// Starts every member and waits until the cluster answers `/health` with a leader.
    func start() async throws {
        let initialCluster = self.members.map { "\($0.name)=http://127.0.0.1:\($0.peerPort)" }
            .joined(separator: ",")
        for index in self.members.indices {
            let member = self.members[index]
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.binary)
            process.arguments = [
                "--name", member.name,
                "--data-dir", self.directory.appendingPathComponent(member.name).path,
                "--listen-client-urls", "http://127.0.0.1:\(member.clientPort)",
                "--advertise-client-urls", "http://127.0.0.1:\(member.clientPort)",
                "--listen-peer-urls", "http://127.0.0.1:\(member.peerPort)",
                "--initial-advertise-peer-urls", "http://127.0.0.1:\(member.peerPort)",
                "--initial-cluster", initialCluster,
                "--initial-cluster-state", "new",
                "--heartbeat-interval", "50",
                "--election-timeout", "500",
            ]
            let log = self.directory.appendingPathComponent("\(member.name).log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let handle = try FileHandle(forWritingTo: log)
            process.standardOutput = handle
            process.standardError = handle
            try process.runAlone()
            self.members[index].process = process
        }
        for member in self.members {
            try await Self.waitUntilHealthy(port: member.clientPort)
        }
    }

    /// Freezes member `index` with SIGSTOP: its sockets stay open, but nothing on them is answered any more.
    func pause(member index: Int) {
        guard let process = self.members[index].process, process.isRunning else { return }
        kill(process.processIdentifier, SIGSTOP)
    }

    /// Stops member `index` with SIGTERM (after a SIGCONT, should it be paused) and waits for it to exit.
    func stop(member index: Int) {
        guard let process = self.members[index].process else { return }
        if process.isRunning {
            kill(process.processIdentifier, SIGCONT)
            process.terminate()
            process.waitUntilExit()
        }
        self.members[index].process = nil
    }

    /// Stops every member.
    func stopAll() {
        for index in self.members.indices { self.stop(member: index) }
    }

    /// `etcd://127.0.0.1:P1,…/PREFIX`.
    func url(prefix: String) -> String {
        "etcd://" + self.clientPorts.map { "127.0.0.1:\($0)" }.joined(separator: ",") + "/" + prefix
    }

    /// Waits (up to 20 s) until `/health` on `port` says the member is healthy.
    static func waitUntilHealthy(port: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/health")
            request.method = .GET
            if let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(1)),
                let body = try? await response.body.collect(upTo: 1 << 16),
                String(buffer: body).contains("\"true\"")
            {
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw EtcdTestFailure("etcd on port \(port) did not become healthy in 20 s")
    }
}

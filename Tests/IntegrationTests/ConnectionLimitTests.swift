import Foundation
import Testing

/// Descriptors and connections: the total cap follows the descriptor limit, a refused client is told which limit
/// it hit, and idle connections are closed.
@Suite("Connection limits of the daemon")
struct ConnectionLimitTests {
    private static let getInfo = "org.varlink.service.GetInfo"

    @Test("with a low descriptor limit the cap is lowered; the client past it gets TooManyConnections, then a seat")
    func capBelowDescriptorLimit() throws {
        let daemon = try DaemonHarness()
        // 160 descriptors: 128 kept for files and refusals leave 32 connections.
        try daemon.start(launcher: ["/usr/bin/prlimit", "--nofile=160:160"])
        #expect(daemon.log.contains("max-connections lowered from 1000 to 32"), "\(daemon.log)")
        var held: [RawVarlinkConnection] = []
        // Root (the tests' user, usually) has 8 more than the cap, kept for an administrator.
        let seats = 32 + (getuid() == 0 ? 8 : 0)
        // The harness's own probes may still be closing: a seat may take a moment to free.
        for _ in 0..<1000 where held.count < seats {
            let connection = try RawVarlinkConnection(path: daemon.socketPath)
            if try connection.call(Self.getInfo)?["error"] == nil { held.append(connection) }
        }
        try #require(held.count == seats)
        let extra = try RawVarlinkConnection(path: daemon.socketPath)
        let reply = try #require(try extra.call("io.viper.settings.Get", #"{"key": "network.proxy.port"}"#))
        #expect(reply["error"] as? String == "io.viper.settings.TooManyConnections")
        let parameters = reply["parameters"] as? [String: Any]
        #expect(parameters?["limit"] as? String == "max-connections")
        #expect(parameters?["maximum"] as? Int == 32)
        #expect(try extra.read() == nil, "the refused connection is closed after the reply")
        held.removeFirst()
        let deadline = Date().addingTimeInterval(60)
        var served = false
        while !served && Date() < deadline {
            served = daemon.ctl(["get", "network.proxy.port"]).stdout == "3128\n"
        }
        #expect(served, "a connection was served again once one closed")
    }

    @Test("settingsctl over max-connections-per-uid says which limit in a sentence and exits 3, get and watch alike")
    func settingsctlOverTheLimit() throws {
        let daemon = try DaemonHarness()
        let configuration = daemon.root.appendingPathComponent("viper-settingsd.conf")
        let modules = DaemonHarness.packageRoot.appendingPathComponent("config/modules").path
        try Data("modules-dir = \(modules)\nmax-connections-per-uid = 2\n".utf8).write(to: configuration)
        try daemon.start(extraArguments: ["--config", configuration.path])
        var held: [RawVarlinkConnection] = []
        // The harness's own probes may still be closing: a seat may take a moment to free.
        for _ in 0..<1000 where held.count < 2 {
            let connection = try RawVarlinkConnection(path: daemon.socketPath)
            if try connection.call(Self.getInfo)?["error"] == nil { held.append(connection) }
        }
        try #require(held.count == 2)
        for arguments in [["get", "network.proxy.port"], ["watch", "network"]] {
            let refused = daemon.ctl(arguments)
            #expect(refused.status == 3, "\(arguments): \(refused)")
            #expect(
                refused.stderr.hasPrefix(
                    "settingsctl: the settings daemon refuses more connections: max-connections-per-uid (2) reached;"
                ),
                "\(arguments): \(refused)"
            )
            #expect(!refused.stderr.contains("answered with the error"), "\(arguments): \(refused)")
        }
        let json = daemon.ctl(["--json", "get", "network.proxy.port"])
        #expect(json.status == 3, "\(json)")
        let report = try JSONSerialization.jsonObject(with: Data(json.stderr.utf8)) as? [String: Any]
        #expect(report?["error"] as? String == "io.viper.settings.TooManyConnections", "\(json)")
        #expect(report?["exitStatus"] as? Int == 3, "\(json)")
        held.removeAll()
    }

    @Test("a connection without a call for idle-timeout seconds is closed")
    func idleConnectionsAreClosed() throws {
        let daemon = try DaemonHarness()
        let configuration = daemon.root.appendingPathComponent("viper-settingsd.conf")
        let modules = DaemonHarness.packageRoot.appendingPathComponent("config/modules").path
        try Data("modules-dir = \(modules)\nidle-timeout = 1\n".utf8).write(to: configuration)
        try daemon.start(extraArguments: ["--config", configuration.path])
        let connection = try RawVarlinkConnection(path: daemon.socketPath)
        #expect(try connection.call(Self.getInfo)?["error"] == nil)
        // Nothing more is sent: the daemon closes the connection (a read times out after 60 s otherwise).
        #expect(try connection.read() == nil)
    }
}

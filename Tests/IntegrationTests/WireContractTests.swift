import Foundation
import SettingsAPI
import Synchronization
import Testing
import ViperSettingsTesting
import ViperTestSupport

/// Every method and every error of `io.viper.settings`, called on the real daemon with ``CheckedVarlinkClient``,
/// whose replies must match the IDL field for field.
@Suite("the daemon's replies match io.viper.settings.varlink", .serialized)
struct WireContractTests {
    @Test("every method and every declared error, against the IDL")
    func everyMethodAndError() throws {
        let fleet = try FleetDocumentServer(
            document: #"""
                {"revision": "r1", "modules": {"network": {
                  "recommended": {"proxy.mode": "auto"}, "mandatory": {"proxy.port": 8080}}}}
                """#
        )
        let daemon = try DaemonHarness()
        try daemon.start(extraArguments: ["--remote", fleet.url])
        let client = CheckedVarlinkClient(socketPath: daemon.socketPath)
        var replies: [(String, CheckedVarlinkClient.Reply)] = []
        func call(
            _ method: String,
            _ parameters: JSONValue = [:],
            asUser uid: UInt32? = nil,
            on target: CheckedVarlinkClient? = nil
        ) throws {
            let reply = try (target ?? client).call(method, parameters, asUser: uid)
            replies.append(("\(method) \(parameters.serialized())", reply))
        }

        let deadline = Date().addingTimeInterval(60)
        while try client.call("Get", ["key": "network.proxy.port"]).parameters["item"]?["value"] != 8080 {
            try #require(Date() < deadline, "the remote values did not arrive; daemon log:\n\(daemon.log)")
            usleep(50_000)
        }
        try call("ListModules")
        try call("ShowModule", ["module": "network"])
        try call("Get", ["key": "network.proxy.mode"])
        try call("Set", ["key": "display.output.scale", "text": "1.5"])
        try call("Set", ["key": "updates.policy.channels", "value": ["stable", "beta"]])
        try call("Reset", ["key": "display.output.scale"])
        try call("Reset", ["key": "updates"])
        try call("Explain", ["key": "network.proxy.port"])
        try call("Explain", ["key": "network.dns.cache"])
        try call("Status")
        try call("Sync")
        // Just after: the result of the one before, said with earlier.
        try call("Sync")
        // A watch stream: current values, ready, then the change a Set makes, each reply checked.
        let stream = try client.stream(
            "Watch",
            ["keys": ["network.proxy.mode", "display.output.scale"]],
            ready: { $0.parameters["event"] == "ready" },
            then: { try call("Set", ["key": "display.output.scale", "text": "1.25"]) },
            done: { $0.parameters["event"] == "change" }
        )
        replies += stream.map { ("Watch stream", $0) }
        #expect(stream.map { $0.parameters["event"]?.stringValue ?? "?" } == ["current", "current", "ready", "change"])
        #expect(stream.last?.parameters["key"] == "display.output.scale")
        #expect(stream.last?.parameters["old"] == 1.0 && stream.last?.parameters["value"] == 1.25)
        let resumed = try client.stream(
            "Watch",
            ["keys": ["display"], "after": stream[2].parameters["cursor"] ?? ""],
            ready: { $0.parameters["event"] == "ready" }
        )
        #expect(resumed.map { $0.parameters["event"]?.stringValue ?? "?" }.prefix(2) == ["change", "ready"])
        replies += resumed.map { ("Watch resumed", $0) }

        try call("Dump")
        try call("Dump", ["modules": ["network"], "effective": true])
        let load: JSONValue = ["modules": ["display": ["values": ["output.scale": 2.0, "night-light.enabled": true]]]]
        try call("Load", ["modules": load["modules"]!, "dryRun": true])
        try call("Load", ["modules": load["modules"]!, "replace": true])
        try call("Load", ["modules": ["network": ["values": ["proxy.port": 1, "nope.nope": 1]]], "dryRun": true])
        try call("Load", ["modules": ["network": ["values": ["proxy.port": 1, "proxy.mode": "bogus"]]]])
        try call("Load", ["modules": load["modules"]!, "ifRevision": ["display": 1]])

        try call("ShowModule", ["module": "nope"])
        try call("Get", ["key": "network.nope"])
        try call("Set", ["key": "display.output.scale", "text": "big"])
        try call("Set", ["key": "network.proxy.port", "text": "1"])
        if getuid() == 0 {
            chmod(daemon.root.path, 0o755)
            chmod(daemon.root.appendingPathComponent("run").path, 0o755)
            try call("Set", ["key": "network.proxy.port", "text": "1"], asUser: 65534)
        }
        // A directory where the journal goes: the write cannot be stored.
        try FileManager.default.createDirectory(
            at: daemon.stateDirectory.appendingPathComponent("power.journal"),
            withIntermediateDirectories: true
        )
        try call("Set", ["key": "power.idle.blank-after", "text": "10"])
        #expect(daemon.stop() == 0, "daemon log:\n\(daemon.log)")

        // No remote, and one connection per user: Sync is unavailable, and a second connection is refused.
        let offline = try DaemonHarness()
        let configuration = offline.root.appendingPathComponent("viper-settingsd.conf")
        let modules = DaemonHarness.packageRoot.appendingPathComponent("config/modules").path
        try Data("modules-dir = \(modules)\nmax-connections-per-uid = 1\n".utf8).write(to: configuration)
        try offline.start(extraArguments: ["--config", configuration.path])
        let offlineClient = CheckedVarlinkClient(socketPath: offline.socketPath)
        try call("Sync", on: offlineClient)
        var held: RawVarlinkConnection?
        // The harness's own connections may still be closing: a seat may take a moment to free.
        for _ in 0..<1000 where held == nil {
            let connection = try RawVarlinkConnection(path: offline.socketPath)
            if try connection.call("org.varlink.service.GetInfo")?["error"] == nil { held = connection }
        }
        try #require(held != nil)
        try call("Get", ["key": "network.proxy.port"], on: offlineClient)
        withExtendedLifetime(held) {}
        #expect(offline.stop() == 0)

        // A remote that answers once, then hangs: a Sync under way when the daemon stops did not finish.
        try replies.append(("Sync while the daemon stops", Self.syncCutShortByStop()))

        for (call, reply) in replies {
            #expect(reply.violations.isEmpty, "\(call) -> \(reply.error ?? "reply") \(reply.parameters.serialized())")
        }
        let expected = [
            "ListModules", "ShowModule", "Get", "Set", "Reset", "Explain", "Status", "Sync", "Watch", "Dump", "Load",
            "NoSuchModule", "NoSuchKey", "InvalidValue", "KeyLocked", "StorageFailure", "SyncUnavailable",
            "TooManyConnections", "RevisionMismatch", "LoadRefused", "SyncInterrupted",
        ]
        let answered = replies.map { $0.1.error.map { String($0.split(separator: ".").last!) } ?? "" }
        for name in expected.dropFirst(11) { #expect(answered.contains(name), "no call answered \(name)") }
        if getuid() == 0 { #expect(answered.contains("PermissionDenied")) }
        let idl = CheckedVarlinkClient.idl
        #expect(Set(idl.methods.keys).union(idl.errors.keys) == Set(expected + ["PermissionDenied"]))
    }

    /// A Sync whose fetch a hanging remote holds when the daemon gets SIGTERM: its reply.
    private static func syncCutShortByStop() throws -> CheckedVarlinkClient.Reply {
        let document = #"{"revision": "r1", "modules": {"network": {"recommended": {"proxy.mode": "auto"}}}}"#
        let remote = try HoldingHTTPServer(
            answering: 1,
            with: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(document.utf8.count)\r\n"
                + "Connection: close\r\n\r\n\(document)"
        )
        let daemon = try DaemonHarness()
        try daemon.start(extraArguments: ["--remote", "http://127.0.0.1:\(remote.port)/settings.json"])
        let client = CheckedVarlinkClient(socketPath: daemon.socketPath)
        let deadline = Date().addingTimeInterval(60)
        while try client.call("Status").parameters["sync"]?["state"] != "ok" {
            try #require(Date() < deadline, "the first fetch did not succeed; daemon log:\n\(daemon.log)")
            usleep(20_000)
        }
        let reply = Mutex<Result<CheckedVarlinkClient.Reply, any Error>?>(nil)
        let answered = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let result = Result { try client.call("Sync") }
            reply.withLock { $0 = result }
            answered.signal()
        }
        // The next poll is a minute away: the second request is the Sync's, and the remote holds it.
        while remote.requests < 2 {
            try #require(Date() < deadline, "the Sync's request did not reach the remote; daemon log:\n\(daemon.log)")
            usleep(20_000)
        }
        #expect(daemon.stop() == 0, "daemon log:\n\(daemon.log)")
        answered.wait()
        let result = try #require(reply.withLock { $0 })
        let sync = try result.get()
        #expect(sync.error == "io.viper.settings.SyncInterrupted", "\(sync.parameters.serialized())")
        #expect(sync.parameters["reason"]?.stringValue?.hasPrefix("the daemon is stopping") == true)
        return sync
    }

    @Test("the parameters each method takes are the ones the IDL declares")
    func parameterNamesMatchTheIDL() {
        let idl = CheckedVarlinkClient.idl
        #expect(Set(idl.methods.keys) == Set(SettingsMethod.allCases.map(\.rawValue)))
        for method in SettingsMethod.allCases {
            #expect(
                Set(idl.methods[method.rawValue]?.input.map(\.name) ?? []) == method.parameterNames,
                "\(method.rawValue)"
            )
        }
    }

    @Test("a parameter a method does not take is InvalidParameter naming it: a misspelt dryRun makes no Load write")
    func unknownParameterIsRefused() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        let client = CheckedVarlinkClient(socketPath: daemon.socketPath)
        let before = try client.call("Get", ["key": "network.proxy.port"]).parameters
        for misspelt in ["dry_run", "dryrun", "if_revision"] {
            let load = try client.call(
                "Load",
                ["modules": ["network": ["values": ["proxy.port": 4242]]], misspelt: true]
            )
            #expect(load.error == "org.varlink.service.InvalidParameter")
            #expect(load.parameters == ["parameter": .string(misspelt)])
        }
        let get = try client.call("Get", ["key": "network.proxy.port", "bogus": 1])
        #expect(get.error == "org.varlink.service.InvalidParameter" && get.parameters == ["parameter": "bogus"])
        #expect(try client.call("Get", ["key": "network.proxy.port"]).parameters == before, "nothing was written")
        for method in SettingsMethod.allCases where method != .watch {
            let reply = try client.call(method.rawValue, ["zz": 1])
            #expect(reply.error == "org.varlink.service.InvalidParameter", "\(method.rawValue)")
            #expect(reply.parameters == ["parameter": "zz"], "\(method.rawValue)")
        }
        let watch = try client.stream(
            "Watch",
            ["keys": ["network.proxy.port"], "after": "network:0", "cursor": "network:0"],
            ready: { $0.error != nil || $0.parameters["event"] == "ready" }
        )
        #expect(watch.last?.error == "org.varlink.service.InvalidParameter")
        #expect(watch.last?.parameters == ["parameter": "cursor"])
    }

    @Test("the IDL check rejects a field sent but not declared, and a required field that is missing")
    func checkerRejects() throws {
        let idl = CheckedVarlinkClient.idl
        let item: JSONValue = [
            "key": "a.b.c", "id": "c", "title": "C", "summary": "", "type": "int", "value": 1, "display": "1",
            "layer": "default", "modified": false, "locked": false, "default": 1, "defaultDisplay": "1",
        ]
        #expect(idl.problems(inReplyOf: "Get", parameters: ["item": item, "revision": 1]).isEmpty)
        #expect(
            idl.problems(inReplyOf: "io.viper.settings.Get", parameters: ["item": item, "revision": 1, "extra": true])
                == ["Get.extra: sent but not declared"]
        )
        #expect(
            idl.problems(inReplyOf: "Get", parameters: ["item": item]) == ["Get.revision: declared int but missing"]
        )
        var wrong = item.objectValue!
        wrong["layer"] = "remote"
        wrong["locked"] = "no"
        #expect(
            idl.problems(inReplyOf: "Get", parameters: ["item": .object(wrong), "revision": 1])
                == [
                    "Get.item.layer: 'remote' is not one of default, recommended, local, mandatory",
                    "Get.item.locked: declared bool, found string",
                ]
        )
        #expect(
            idl.problems(inError: "io.viper.settings.KeyLocked", parameters: ["key": "k"])
                == ["KeyLocked.source: declared string but missing"]
        )
        #expect(idl.problems(inError: "io.viper.settings.Nope", parameters: [:]).count == 1)
    }
}

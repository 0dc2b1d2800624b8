import Foundation
import SettingsAPI
import Testing
import ViperSettingsTesting
import ViperTestSupport

/// viper-settings-apply against the real daemon: files on disk follow `settingsctl set`, also across a crash of
/// the applier and a restart of the daemon.
@Suite("viper-settings-apply end to end", .serialized)
struct ApplierEndToEndTests {
    /// Targets in a temporary folder: `dns` (checked with grep) and `proxy` (reloaded: the reload appends to a log).
    struct Applier {
        let daemon: DaemonHarness
        let root: String
        let targets: String
        let state: String
        let control: String
        var dns: String { self.root + "/etc/systemd/resolved.conf.d/50-viper.conf" }
        var proxy: String { self.root + "/etc/proxy.conf" }
        var reloads: String { self.daemon.root.path + "/reloads" }

        init(_ daemon: DaemonHarness) throws {
            self.daemon = daemon
            let base = daemon.root.path
            self.root = base + "/root"
            self.targets = base + "/apply.d"
            self.state = base + "/apply-state"
            self.control = base + "/run/apply.sock"
            try FileManager.default.createDirectory(atPath: self.targets, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: self.root, withIntermediateDirectories: true)
            try Files.write(
                #"""
                {"reads": ["network.dns"], "template": "dns.mustache",
                 "destination": "/etc/systemd/resolved.conf.d/50-viper.conf", "check": ["grep", "-q", "^DNS=", "{file}"]}
                """#,
                to: self.targets + "/dns.json"
            )
            try Files.write(
                "[Resolve]\nDNS={{#network.dns.servers}}{{.}}{{^last()}} {{/last()}}{{/network.dns.servers}}\n",
                to: self.targets + "/dns.mustache"
            )
            try Files.write(
                """
                {"reads": ["network.proxy.port"], "template": "proxy.mustache", "destination": "/etc/proxy.conf",
                 "reload": ["sh", "-c", "echo reloaded >> \(base)/reloads"]}
                """,
                to: self.targets + "/proxy.json"
            )
            try Files.write("port={{network.proxy.port}}\n", to: self.targets + "/proxy.mustache")
        }

        /// Starts the applier on the fixture's root; with `runReloads`, the targets' reload commands run too
        /// (`--run-reloads`: here they only append to a log); with `umask`, under that umask, as from a shell; with
        /// `environment` added to the test's own (`NOTIFY_SOCKET`).
        func start(
            control: String? = nil,
            runReloads: Bool = true,
            umask: String? = nil,
            environment: [String: String] = [:],
            launcher: [String] = []
        ) throws -> BackgroundCommand {
            let command =
                launcher + [
                    self.daemon.binDirectory.appendingPathComponent("viper-settings-apply").path,
                    "--targets-dir", self.targets, "--socket", self.daemon.socketPath, "--state-dir", self.state,
                    "--control-socket", control ?? self.control, "--root", self.root,
                ] + (runReloads ? ["--run-reloads"] : [])
            guard let umask else { return try BackgroundCommand(command, environment: environment) }
            return try BackgroundCommand(
                ["/bin/sh", "-c", "umask \(umask) && exec \"$0\" \"$@\""] + command,
                environment: environment
            )
        }

        /// Creates the folder of the control socket, which is the daemon's too: for an applier started before the
        /// daemon, which is not there to create it yet.
        func makeControlDirectory() throws {
            try FileManager.default.createDirectory(
                at: URL(fileURLWithPath: self.control).deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
        }

        /// Writes the target `slow` (`/etc/slow.conf`, holding `old` now), whose check writes its process id to
        /// `checkPID`, then sleeps 100 s; returns the destination's path.
        func writeSlowTarget(checkPID: String) throws -> String {
            try Files.write(
                """
                {"reads": ["network.proxy.port"], "template": "proxy.mustache", "destination": "/etc/slow.conf",
                 "check": ["sh", "-c", "echo $$ > \(checkPID); exec sleep 100"]}
                """,
                to: self.targets + "/slow.json"
            )
            let slow = self.root + "/etc/slow.conf"
            try Files.write("old\n", to: slow)
            return slow
        }

        /// Waits until `path` holds `text` (the applier has no fixed delay to wait for).
        func wait(_ applier: BackgroundCommand, until path: String, contains text: String) -> Bool {
            applier.wait { _ in ((try? Files.read(path)) ?? "").contains(text) }
        }
    }

    @Test("a target owned by another user is written and updated with the unit's drop-in's capabilities alone")
    func ownerWithoutFowner() throws {
        guard getuid() == 0 else { return }  // only root may give a file away
        let daemon = try DaemonHarness()
        try daemon.start()
        let fixture = try Applier(daemon)
        try Files.write(
            #"{"reads": ["network.proxy.port"], "template": "proxy.mustache", "destination": "/etc/owned.conf", "#
                + #""owner": "65534", "group": "65534", "mode": "0640"}"#,
            to: fixture.targets + "/owned.json"
        )
        // As systemd/viper-settings-apply.service says: CapabilityBoundingSet=CAP_CHOWN CAP_DAC_READ_SEARCH.
        let applier = try fixture.start(launcher: [
            "/usr/bin/setpriv", "--bounding-set=-all,+chown,+dac_read_search", "--inh-caps=-all", "--",
        ])
        let owned = fixture.root + "/etc/owned.conf"
        #expect(fixture.wait(applier, until: owned, contains: "port=3128"), "\(applier.stderr)")
        var info = stat()
        #expect(stat(owned, &info) == 0)
        #expect(info.st_uid == 65534 && info.st_gid == 65534 && info.st_mode & 0o7777 == 0o640)
        // The next change reads the file back (0640, not root's) and replaces it.
        #expect(daemon.ctl(["set", "network.proxy.port", "4000"]).status == 0)
        #expect(fixture.wait(applier, until: owned, contains: "port=4000"), "\(applier.stderr)")
        #expect(!applier.stderr.contains("Permission denied"), "\(applier.stderr)")
    }

    @Test("every target is rendered at start; a set reaches its file; Status reports what was written")
    func setReachesFile() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        let fixture = try Applier(daemon)
        let applier = try fixture.start()
        #expect(fixture.wait(applier, until: fixture.proxy, contains: "port=3128"), "\(applier.stderr)")
        #expect(try Files.read(fixture.dns) == "[Resolve]\nDNS=\n")

        #expect(daemon.ctl(["set", "network.dns.servers", "9.9.9.9,1.1.1.1"]).status == 0)
        #expect(fixture.wait(applier, until: fixture.dns, contains: "DNS=9.9.9.9 1.1.1.1\n"), "\(applier.stderr)")
        #expect(try Files.read(fixture.reloads) == "reloaded\n", "a change to another target reloads nothing")

        // A second applier on the same state directory is refused, naming it; the first goes on.
        let second = try fixture.start(control: fixture.control + ".2")
        #expect(second.wait { !$0.isRunning }, "a second applier on the same state directory kept running")
        #expect(second.stop() == 1)
        #expect(
            second.stderr.contains("the state directory \(fixture.state) is in use by another viper-settings-apply"),
            "\(second.stderr)"
        )

        let status = try RawVarlinkConnection(path: fixture.control).call("io.viper.settings.Apply.Status")
        let targets = (status?["parameters"] as? [String: Any])?["targets"] as? [[String: Any]] ?? []
        let dns = targets.first { $0["target"] as? String == "dns" }?["last"] as? [String: Any]
        #expect(dns?["result"] as? String == "written", "\(String(describing: status))")
        #expect((dns?["revisions"] as? [String: Any])?["network"] as? Int == 1)
        #expect((dns?["check"] as? [String: Any])?["status"] as? Int == 0)
        #expect(applier.stderr.contains("wrote \(fixture.dns) (target dns)"))
        // The replies are what io.viper.settings.Apply declares, field for field.
        let idl = try VarlinkIDL(parsing: ApplyMethod.interfaceDescription)
        // A mode other than the target's: the dry run says so (attributes), as the IDL declares.
        #expect(chmod(fixture.dns, 0o600) == 0)
        let dryRun = try RawVarlinkConnection(path: fixture.control).call("io.viper.settings.Apply.DryRun")
        let dryTargets = (dryRun?["parameters"] as? [String: Any])?["targets"] as? [[String: Any]] ?? []
        let dryDNS = dryTargets.first { $0["target"] as? String == "dns" }
        #expect(dryDNS?["attributes"] as? [String] == ["mode 0600 -> 0644"], "\(String(describing: dryRun))")
        for (method, reply) in [("Status", status), ("DryRun", dryRun)] {
            let data = try JSONSerialization.data(withJSONObject: reply?["parameters"] ?? [:])
            let parameters = try JSONValue(parsing: Array(data))
            #expect(idl.problems(inReplyOf: method, parameters: parameters).isEmpty, "\(method): \(parameters)")
            #expect(parameters["warnings"] == [], "\(method)")
        }
        #expect(applier.stop() == 0, "\(applier.stderr)")
        #expect(daemon.stop() == 0)
    }

    @Test("over its 16 connections per uid, the applier refuses with the TooManyConnections its interface declares")
    func connectionLimitErrorIsDeclared() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        let fixture = try Applier(daemon)
        let applier = try fixture.start()
        #expect(fixture.wait(applier, until: fixture.proxy, contains: "port=3128"), "\(applier.stderr)")
        // Each connection is served (its call answered) before the next opens: all 16 count at once.
        var open: [RawVarlinkConnection] = []
        for _ in 0..<16 {
            let connection = try RawVarlinkConnection(path: fixture.control)
            #expect(try connection.call("io.viper.settings.Apply.Status")?["error"] == nil)
            open.append(connection)
        }
        let refused = try RawVarlinkConnection(path: fixture.control).call("io.viper.settings.Apply.Status")
        let error = refused?["error"] as? String
        #expect(error == ApplyMethod.tooManyConnections, "\(String(describing: refused))")
        let data = try JSONSerialization.data(withJSONObject: refused?["parameters"] ?? [:])
        let idl = try VarlinkIDL(parsing: ApplyMethod.interfaceDescription)
        #expect(idl.problems(inError: error ?? "", parameters: try JSONValue(parsing: Array(data))).isEmpty)
        #expect((refused?["parameters"] as? [String: Any])?["maximum"] as? Int == 16)
        open.removeAll()
        #expect(applier.stop() == 0, "\(applier.stderr)")
        #expect(daemon.stop() == 0)
    }

    @Test("with --root and without --run-reloads, no reload command runs, and Status says why")
    func rootSkipsReloads() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        let fixture = try Applier(daemon)
        let applier = try fixture.start(runReloads: false)
        #expect(fixture.wait(applier, until: fixture.proxy, contains: "port=3128"), "\(applier.stderr)")
        #expect(daemon.ctl(["set", "network.proxy.port", "8080"]).status == 0)
        #expect(fixture.wait(applier, until: fixture.proxy, contains: "port=8080"), "\(applier.stderr)")
        #expect(!Files.exists(fixture.reloads), "a reload command ran on the host")
        #expect(applier.stderr.contains("wrote \(fixture.proxy) (target proxy); its reload was not run (--root)"))
        let status = try RawVarlinkConnection(path: fixture.control).call("io.viper.settings.Apply.Status")
        let targets = (status?["parameters"] as? [String: Any])?["targets"] as? [[String: Any]] ?? []
        let proxy = targets.first { $0["target"] as? String == "proxy" }?["last"] as? [String: Any]
        #expect(proxy?["result"] as? String == "written", "\(String(describing: status))")
        #expect((proxy?["reloadSkipped"] as? String)?.contains("--run-reloads") == true, "\(String(describing: proxy))")
        #expect(proxy?["reload"] == nil)
        #expect(applier.stop() == 0, "\(applier.stderr)")
        #expect(daemon.stop() == 0)
    }

    @Test("started by hand under umask 077, the directories it creates for a destination are 0755 all the same")
    func umaskIgnoredForDirectories() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        let fixture = try Applier(daemon)
        let applier = try fixture.start(umask: "077")
        #expect(fixture.wait(applier, until: fixture.dns, contains: "DNS="), "\(applier.stderr)")
        var directory = fixture.root
        for part in ["", "/etc", "/systemd", "/resolved.conf.d"] {
            directory += part
            var info = stat()
            #expect(stat(directory, &info) == 0)
            #expect(info.st_mode & 0o7777 == 0o755, "\(directory): \(String(info.st_mode & 0o7777, radix: 8))")
        }
        var file = stat()
        #expect(stat(fixture.dns, &file) == 0 && file.st_mode & 0o7777 == 0o644)
        #expect(applier.stop() == 0, "\(applier.stderr)")
        #expect(daemon.stop() == 0)
    }

    @Test("killed with SIGKILL during a burst of sets and started again, the file ends with the last value")
    func crashDuringBurst() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        let fixture = try Applier(daemon)
        var applier = try fixture.start()
        #expect(fixture.wait(applier, until: fixture.proxy, contains: "port=3128"), "\(applier.stderr)")
        for port in 4000..<4050 {
            #expect(daemon.ctl(["set", "network.proxy.port", "\(port)"]).status == 0)
            if port == 4020 {
                applier.signal(SIGKILL)
                #expect(applier.waitUntilExit() == 128 + SIGKILL || !applier.isRunning)
            }
        }
        #expect(!((try? Files.read(fixture.proxy)) ?? "").contains("port=4049"))
        applier = try fixture.start()
        #expect(fixture.wait(applier, until: fixture.proxy, contains: "port=4049\n"), "\(applier.stderr)")
        let state = try Files.read(fixture.state + "/state.json")
        #expect(state.contains("\"cursor\""), "\(state)")
        #expect(applier.stop() == 0)
        #expect(daemon.stop() == 0)
    }

    @Test("a target added at SIGHUP that names a running target's file (spelt otherwise) is refused; the file stays")
    func reloadKeepsRunningDestination() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        let fixture = try Applier(daemon)
        try Files.write(
            #"{"reads": ["network.proxy.port"], "template": "zz.mustache", "destination": "/etc/zz.conf", "mode": "0600"}"#,
            to: fixture.targets + "/zz.json"
        )
        try Files.write("zz {{network.proxy.port}}\n", to: fixture.targets + "/zz.mustache")
        let file = fixture.root + "/etc/zz.conf"
        let applier = try fixture.start()
        #expect(fixture.wait(applier, until: file, contains: "zz 3128\n"), "\(applier.stderr)")
        try Files.write(
            #"{"reads": ["network.proxy.port"], "template": "aa.mustache", "destination": "/etc/./zz.conf"}"#,
            to: fixture.targets + "/aa.json"
        )
        try Files.write("aa {{network.proxy.port}}\n", to: fixture.targets + "/aa.mustache")
        applier.signal(SIGHUP)
        let refusal = "\(fixture.targets)/aa.json: destination \(file) is also target zz's, which applies it already"
        #expect(applier.wait { $0.stderr.contains(refusal) }, "\(applier.stderr)")
        #expect(!applier.stderr.contains("is also target aa's"), "\(applier.stderr)")
        // The next change is applied by the target that applied the file before, and by no other.
        #expect(daemon.ctl(["set", "network.proxy.port", "8080"]).status == 0)
        #expect(fixture.wait(applier, until: file, contains: "8080\n"), "\(applier.stderr)")
        #expect(try Files.read(file) == "zz 8080\n")
        var info = stat()
        #expect(stat(file, &info) == 0 && info.st_mode & 0o7777 == 0o600)
        #expect(applier.stop() == 0, "\(applier.stderr)")
        #expect(daemon.stop() == 0)
    }

    @Test("a targets directory it cannot read is exit 1 at start, with the reason; at SIGHUP it keeps its targets")
    func unreadableTargetsDirectory() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        let fixture = try Applier(daemon)
        let moved = fixture.targets + ".moved"
        try FileManager.default.moveItem(atPath: fixture.targets, toPath: moved)
        let missing = try fixture.start()
        #expect(missing.wait { !$0.isRunning })
        #expect(missing.stop() == 1, "\(missing.stderr)")
        #expect(
            missing.stderr.contains(
                "cannot read the targets directory \(fixture.targets) (--targets-dir): No such file or directory"
            ),
            "\(missing.stderr)"
        )
        try Files.write("", to: fixture.targets)
        let file = try fixture.start()
        #expect(file.wait { !$0.isRunning })
        #expect(file.stop() == 1, "\(file.stderr)")
        #expect(
            file.stderr.contains(
                "cannot read the targets directory \(fixture.targets) (--targets-dir): Not a directory"
            ),
            "\(file.stderr)"
        )
        try FileManager.default.removeItem(atPath: fixture.targets)
        try FileManager.default.moveItem(atPath: moved, toPath: fixture.targets)
        let applier = try fixture.start()
        #expect(fixture.wait(applier, until: fixture.proxy, contains: "port=3128"), "\(applier.stderr)")
        try FileManager.default.moveItem(atPath: fixture.targets, toPath: moved)
        applier.signal(SIGHUP)
        #expect(
            applier.wait {
                $0.stderr.contains(
                    "targets not re-read, keeping the 2 loaded until now: cannot read the targets directory"
                        + " \(fixture.targets) (--targets-dir): No such file or directory"
                )
            },
            "\(applier.stderr)"
        )
        #expect(daemon.ctl(["set", "network.proxy.port", "8080"]).status == 0)
        #expect(fixture.wait(applier, until: fixture.proxy, contains: "port=8080\n"), "\(applier.stderr)")
        #expect(applier.stop() == 0, "\(applier.stderr)")
        #expect(daemon.stop() == 0)
    }

    @Test("when the daemon restarts, the applier reconnects and follows the changes made after it")
    func daemonRestart() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        let fixture = try Applier(daemon)
        let applier = try fixture.start()
        #expect(fixture.wait(applier, until: fixture.proxy, contains: "port=3128"), "\(applier.stderr)")
        #expect(daemon.stop() == 0)
        #expect(applier.wait { $0.stderr.contains("lost the connection to the settings daemon") }, "\(applier.stderr)")
        try daemon.start()
        #expect(daemon.ctl(["set", "network.proxy.port", "8080"]).status == 0)
        #expect(fixture.wait(applier, until: fixture.proxy, contains: "port=8080\n"), "\(applier.stderr)")
        #expect(applier.stop() == 0)
        #expect(daemon.stop() == 0)
    }

    @Test("a dry run while the applier is not connected to the daemon is exit 3 saying so, after a loss as at a start")
    func dryRunNeedsTheDaemon() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        let fixture = try Applier(daemon)
        var applier = try fixture.start()
        #expect(fixture.wait(applier, until: fixture.proxy, contains: "port=3128"), "\(applier.stderr)")
        let dryRun = ["apply", "--dry-run", "--apply-socket", fixture.control]
        let connected = daemon.ctl(dryRun)
        #expect(connected.status == 0, "\(connected)")
        let refusal =
            "the applier is not ready: it is not connected to the settings daemon (it keeps trying to reconnect), so"
            + " the values it holds may be stale; nothing was rendered"
        // Lost: the values it last received are not rendered as if they were current.
        #expect(daemon.stop() == 0)
        #expect(applier.wait { $0.stderr.contains("lost the connection to the settings daemon") }, "\(applier.stderr)")
        let lost = daemon.ctl(dryRun)
        #expect(lost.status == 3 && lost.stderr.contains(refusal), "\(lost)")
        #expect(applier.stop() == 0, "\(applier.stderr)")
        // Started again without the daemon: the same answer, although state.json holds the values.
        applier = try fixture.start()
        #expect(
            applier.wait {
                $0.stderr.contains("cannot reach the settings daemon yet")
                    && (try? RawVarlinkConnection(path: fixture.control).call("io.viper.settings.Apply.Status")) != nil
            },
            "\(applier.stderr)"
        )
        let started = daemon.ctl(dryRun)
        #expect(started.status == 3 && started.stderr.contains(refusal), "\(started)")
        #expect(applier.stop() == 0, "\(applier.stderr)")
    }

    @Test("systemd's STATUS= is told again as the daemon appears (every target applied), is lost, and comes back")
    func statusFollowsDaemon() throws {
        let daemon = try DaemonHarness()
        let fixture = try Applier(daemon)
        try fixture.makeControlDirectory()
        let notify = try NotifySocket(directory: daemon.root)
        let applier = try fixture.start(environment: ["NOTIFY_SOCKET": notify.path])
        func told(_ status: String) -> Bool {
            notify.wait(for: "STATUS=" + status) != nil
        }
        #expect(told("2 targets; waiting for the settings daemon's values (cannot reach it; trying again)"))
        try daemon.start()
        #expect(told("2 targets applied; following the settings daemon"), "\(applier.stderr)")
        #expect(try Files.read(fixture.proxy) == "port=3128\n")
        #expect(daemon.stop() == 0)
        #expect(
            told("2 targets applied; lost the settings daemon; reconnecting (the files keep the values last received)"),
            "\(applier.stderr)"
        )
        try daemon.start()
        #expect(told("2 targets applied; following the settings daemon"), "\(applier.stderr)")
        #expect(applier.stop() == 0, "\(applier.stderr)")
        #expect(daemon.stop() == 0)
    }

    @Test("stopped while it waits for the daemon, it stops then, without telling systemd READY=1")
    func stopWhileWaiting() throws {
        let daemon = try DaemonHarness()
        let fixture = try Applier(daemon)
        try fixture.makeControlDirectory()
        let notify = try NotifySocket(directory: daemon.root)
        let applier = try fixture.start(environment: ["NOTIFY_SOCKET": notify.path])
        #expect(applier.wait { $0.stderr.contains("cannot reach the settings daemon yet") }, "\(applier.stderr)")
        #expect(applier.stop() == 0, "\(applier.stderr)")
        let told = notify.drain()
        #expect(told.contains { $0.hasPrefix("STOPPING=1\n") }, "\(told)")
        #expect(!told.contains { $0.contains("READY=1") }, "\(told)")
        #expect(!applier.stderr.contains("ready:"), "\(applier.stderr)")
    }

    @Test("after the daemon's state is reset, the applier's cursor (of the old history) starts over: files follow")
    func daemonStateReset() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        let fixture = try Applier(daemon)
        let applier = try fixture.start()
        #expect(daemon.ctl(["set", "network.dns.servers", "1.1.1.1"]).status == 0)
        #expect(fixture.wait(applier, until: fixture.dns, contains: "DNS=1.1.1.1\n"), "\(applier.stderr)")
        #expect(daemon.stop() == 0)
        // A new state directory whose revisions pass the applier's cursor, with other values.
        try FileManager.default.removeItem(at: daemon.stateDirectory)
        try daemon.start()
        #expect(daemon.ctl(["set", "network.proxy.port", "8080"]).status == 0)
        #expect(daemon.ctl(["set", "network.proxy.port", "8081"]).status == 0)
        #expect(fixture.wait(applier, until: fixture.proxy, contains: "port=8081"), "\(applier.stderr)")
        // The DNS servers are the new state's (none), not those of the old history.
        #expect(try Files.read(fixture.dns) == "[Resolve]\nDNS=\n")
        #expect(applier.stop() == 0, "\(applier.stderr)")
        #expect(daemon.stop() == 0)
    }

    @Test("a burst of sets while a check runs is applied by one more pass from the newest value, not a pass per read")
    func burstBehindSlowCheck() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        let fixture = try Applier(daemon)
        let base = daemon.root.path
        let (gate, runs) = (base + "/gate", base + "/check-runs")
        // Each run of the check is a line in `runs`; it returns only once `gate` exists.
        try Files.write(
            """
            {"reads": ["network.proxy.port"], "template": "proxy.mustache", "destination": "/etc/gated.conf",
             "check": ["sh", "-c", "echo run >> \(runs); while [ ! -e \(gate) ]; do sleep 0.02; done"]}
            """,
            to: fixture.targets + "/gated.json"
        )
        let gated = fixture.root + "/etc/gated.conf"
        func checkRuns() -> Int { ((try? Files.read(runs)) ?? "").split(separator: "\n").count }
        try Files.write("", to: gate)
        let applier = try fixture.start()
        #expect(fixture.wait(applier, until: gated, contains: "port=3128"), "\(applier.stderr)")
        #expect(unlink(gate) == 0)
        let connection = try RawVarlinkConnection(path: daemon.socketPath)
        let set = { (port: Int) in
            try connection.call("io.viper.settings.Set", #"{"key": "network.proxy.port", "value": \#(port)}"#)
        }
        _ = try set(1)
        #expect(applier.wait { _ in checkRuns() == 2 }, "the check of port=1 never started: \(applier.stderr)")
        // 400 changes while that check waits: the applier reads them on, and holds the newest.
        for port in 2...401 { _ = try set(port) }
        try Files.write("", to: gate)
        #expect(fixture.wait(applier, until: gated, contains: "port=401"), "\(applier.stderr)")
        // The pass of port=1, then one from the newest values (a third only if the last events came in meanwhile);
        // a pass per read of the stream made six or more.
        #expect(checkRuns() <= 4, "\(checkRuns() - 2) passes after the check of port=1")
        #expect(applier.stop() == 0, "\(applier.stderr)")
        #expect(daemon.stop() == 0)
    }

    @Test("SIGTERM during a slow check stops the check's process group and the applier at once; nothing is written")
    func stopDuringCheck() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        let fixture = try Applier(daemon)
        let base = daemon.root.path
        // Its check would run for 100 s, longer than systemd's TimeoutStopSec=15s, under the applier's 60 s limit.
        let slow = try fixture.writeSlowTarget(checkPID: base + "/check-pid")
        let applier = try fixture.start()
        #expect(applier.wait { _ in Files.exists(base + "/check-pid") }, "the check never started: \(applier.stderr)")
        let pid = try #require(Processes.pid(in: base + "/check-pid"))
        applier.signal(SIGTERM)
        // Well under the check's 100 s and the applier's 60 s limit; generous for a loaded machine.
        let deadline = Date().addingTimeInterval(20)
        while applier.isRunning && Date() < deadline { usleep(20_000) }
        #expect(!applier.isRunning, "still running 20 s after SIGTERM: \(applier.stderr)")
        #expect(applier.stop() == 0, "\(applier.stderr)")
        #expect(!Processes.isRunning(pid), "the check outlived the applier")
        if Processes.isRunning(pid) { kill(pid, SIGKILL) }
        #expect(try Files.read(slow) == "old\n", "an interrupted check must not let the file be written")
        #expect(!applier.stderr.contains("check-failed"), "\(applier.stderr)")
        // Not recorded as an outcome: the next start applies the target again.
        let state = try JSONValue(parsing: try Files.read(fixture.state + "/state.json"))
        #expect(state["outcomes"]?["slow"] == nil, "\(state)")
        #expect(daemon.stop() == 0)
    }

    @Test("a target removed by a SIGHUP while the check of the apply another SIGHUP started runs is never written")
    func removedDuringReloadCheck() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        let fixture = try Applier(daemon)
        let base = daemon.root.path
        let applier = try fixture.start()
        // Every target applied from the daemon's values: a SIGHUP now applies what it loads at once.
        #expect(
            fixture.wait(applier, until: fixture.root + "/etc/proxy.conf", contains: "port=3128"),
            "\(applier.stderr)"
        )
        // Added at a SIGHUP: that reload's apply runs its check, which would run for 100 s.
        let slow = try fixture.writeSlowTarget(checkPID: base + "/check-pid")
        applier.signal(SIGHUP)
        #expect(applier.wait { _ in Files.exists(base + "/check-pid") }, "the check never started: \(applier.stderr)")
        let pid = try #require(Processes.pid(in: base + "/check-pid"))
        // Removed by the next SIGHUP while that check runs: handled now, not after the check.
        try FileManager.default.removeItem(atPath: fixture.targets + "/slow.json")
        applier.signal(SIGHUP)
        #expect(
            applier.wait { $0.stderr.contains("its apply was stopped before it wrote") },
            "the second SIGHUP did not stop the apply: \(applier.stderr)"
        )
        #expect(applier.wait { _ in !Processes.isRunning(pid) }, "the check outlived its target")
        if Processes.isRunning(pid) { kill(pid, SIGKILL) }
        #expect(try Files.read(slow) == "old\n", "a removed target's file must not be written")
        #expect(!applier.stderr.contains("wrote \(slow) (target slow)"), "\(applier.stderr)")
        #expect(applier.stop() == 0, "\(applier.stderr)")
        #expect(daemon.stop() == 0)
    }

    @Test("a fleet value (recommended, then mandatory after a sync) reaches the file like a local one")
    func fleetChangeReachesFile() throws {
        let fleet = try FleetDocumentServer(
            document: #"{"revision": "r1", "modules": {"network": {"recommended": {"dns.servers": ["10.1.1.1"]}}}}"#
        )
        let daemon = try DaemonHarness()
        try daemon.start(extraArguments: ["--remote", fleet.url])
        let fixture = try Applier(daemon)
        let applier = try fixture.start()
        #expect(
            fixture.wait(applier, until: fixture.dns, contains: "DNS=10.1.1.1\n"),
            "\(applier.stderr)\n\(daemon.log)"
        )
        try fleet.update(#"{"revision": "r2", "modules": {"network": {"mandatory": {"dns.servers": ["10.2.2.2"]}}}}"#)
        #expect(daemon.ctl(["sync"]).status == 0)
        #expect(fixture.wait(applier, until: fixture.dns, contains: "DNS=10.2.2.2\n"), "\(applier.stderr)")
        #expect(applier.stop() == 0)
        #expect(daemon.stop() == 0)
    }
}

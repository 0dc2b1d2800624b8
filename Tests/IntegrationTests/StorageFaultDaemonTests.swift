import Foundation
import Testing

/// The real daemon when its state files are wrong, or values too large: it says what is wrong, serves what it can,
/// and never crashes.
@Suite("viper-settingsd storage faults", .serialized)
struct StorageFaultDaemonTests {
    @Test("a state directory that is a file: named in the log, other reads served, writes refused naming it")
    func stateDirectoryIsAFile() throws {
        let daemon = try DaemonHarness()
        try Data("not a directory".utf8).write(to: daemon.stateDirectory)
        try daemon.start()
        #expect(daemon.ctl(["get", "network.proxy.port"]).stdout == "3128\n")
        let set = daemon.ctl(["set", "network.proxy.port", "8080"])
        #expect(set.status != 0)
        #expect(set.stderr.contains("\(daemon.stateDirectory.path) cannot be used"), "\(set)")
        #expect(daemon.log.contains("is a regular file, expected a directory"), "\(daemon.log)")
        // status says so (no systemd here), as STATUS= would.
        let broken = daemon.ctl(["status"])
        #expect(broken.stdout.contains("problems:\n  state files unusable: "), "\(broken)")
        // Fixed while running: the next write goes through, and status lists no problem any more.
        try FileManager.default.removeItem(at: daemon.stateDirectory)
        #expect(daemon.ctl(["set", "network.proxy.port", "8080"]).status == 0)
        #expect(daemon.ctl(["get", "network.proxy.port"]).stdout == "8080\n")
        let fixed = daemon.ctl(["status"])
        #expect(fixed.status == 0 && !fixed.stdout.contains("problems:"), "\(fixed)")
    }

    @Test("a revision of 2^63-1 in a state file: set fails with a clear error and the daemon keeps serving")
    func highestRevision() throws {
        let daemon = try DaemonHarness()
        try FileManager.default.createDirectory(at: daemon.stateDirectory, withIntermediateDirectories: true)
        try Data(
            #"{"format": 1, "module": "network", "revision": 9223372036854775807, "local": {"proxy.port": 8080}}"#.utf8
        ).write(to: daemon.stateDirectory.appendingPathComponent("network.json"))
        try daemon.start()
        let set = daemon.ctl(["set", "network.proxy.port", "9090"])
        #expect(set.status == 1 && set.stderr.contains("highest there is"), "\(set)")
        #expect(daemon.ctl(["get", "network.proxy.port"]).stdout == "8080\n", "the daemon must still serve")
        #expect(daemon.ctl(["set", "display.output.scale", "2"]).status == 0)
    }

    @Test("a load of several modules, one of whose state files the daemon knows it cannot write, writes none")
    func loadRefusedBeforeAnyWrite() throws {
        let daemon = try DaemonHarness()
        let journal = daemon.stateDirectory.appendingPathComponent("network.journal")
        try FileManager.default.createDirectory(at: journal, withIntermediateDirectories: true)
        try daemon.start()
        let file = daemon.root.appendingPathComponent("load.json")
        try Data(
            #"{"modules": {"display": {"values": {"output.scale": 2}}, "network": {"values": {"proxy.port": 8080}}}}"#
                .utf8
        ).write(to: file)
        let load = daemon.ctl(["load", file.path])
        #expect(load.status == 1, "\(load)")
        #expect(load.stderr.contains("could not store the change to module 'network'"), "\(load)")
        #expect(load.stderr.contains("\(journal.path) is a directory"), "\(load)")
        #expect(!load.stderr.contains("were loaded"), "nothing was: \(load)")
        #expect(daemon.ctl(["get", "display.output.scale"]).stdout == "1.0\n", "display was not written")
        // Moved away, the same load goes through.
        try FileManager.default.removeItem(at: journal)
        #expect(daemon.ctl(["load", file.path]).status == 0)
        #expect(daemon.ctl(["get", "display.output.scale"]).stdout == "2.0\n")
    }

    @Test("a value over max-value-size is an invalid value naming the limit; the journal stays small")
    func valueTooLarge() throws {
        let daemon = try DaemonHarness()
        try daemon.start()
        // The error echoes the value: stderr goes to a file, a pipe read after stdout would fill up.
        let errors = daemon.root.appendingPathComponent("set.err").path
        let ctl = daemon.binDirectory.appendingPathComponent("settingsctl").path
        let value = String(repeating: "a", count: 70_000)
        let set = DaemonHarness.run([
            "/bin/sh", "-c", "exec \"$0\" --socket \"$1\" set network.proxy.host \"$2\" 2>\"$3\"", ctl,
            daemon.socketPath, value, errors,
        ])
        let stderr = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        #expect(set.status == 5, "\(set)")
        #expect(stderr.contains("more than the limit of 65536 bytes (max-value-size)"), "\(stderr.suffix(300))")
        let journal = daemon.stateDirectory.appendingPathComponent("network.journal")
        #expect(((try? FileManager.default.attributesOfItem(atPath: journal.path)[.size]) as? Int ?? 0) == 0)
    }
}

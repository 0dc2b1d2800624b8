import Foundation
import ViperTestSupport

/// A fleet document served over HTTP by Python's `http.server` on a free loopback port, for `--remote`.
final class FleetDocumentServer: @unchecked Sendable {
    private let directory: URL
    private let process = Process()
    /// The document's URL.
    private(set) var url = ""

    init(document: String) throws {
        self.directory = FileManager.default.temporaryDirectory.appendingPathComponent("viper-fleet-\(UUID())")
        try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        try document.write(
            to: self.directory.appendingPathComponent("settings.json"),
            atomically: true,
            encoding: .utf8
        )
        // The server picks a free port and writes it to a file, read once it is there.
        let portFile = self.directory.appendingPathComponent("port").path
        let script = """
            import functools, http.server, os, sys
            handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
            server = http.server.HTTPServer(("127.0.0.1", 0), handler)
            with open(sys.argv[2] + ".tmp", "w") as f: f.write(str(server.server_address[1]))
            os.rename(sys.argv[2] + ".tmp", sys.argv[2])
            server.serve_forever()
            """
        self.process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        self.process.arguments = ["-c", script, self.directory.path, portFile]
        self.process.standardOutput = FileHandle.nullDevice
        self.process.standardError = FileHandle.nullDevice
        try self.process.runAlone()
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: portFile) {
            guard self.process.isRunning, Date() < deadline else {
                throw HarnessError("the fleet document server did not start")
            }
            usleep(20_000)
        }
        let port = try String(contentsOfFile: portFile, encoding: .utf8)
        self.url = "http://127.0.0.1:\(port)/settings.json"
    }

    /// Serves `document` from now on (written atomically: a fetch sees the old one or the new one).
    func update(_ document: String) throws {
        try document.write(
            to: self.directory.appendingPathComponent("settings.json"),
            atomically: true,
            encoding: .utf8
        )
    }

    deinit {
        // SIGKILL: the test process may block SIGTERM, and the child inherits its signal mask.
        kill(self.process.processIdentifier, SIGKILL)
        self.process.waitUntilExit()
        try? FileManager.default.removeItem(at: self.directory)
    }
}

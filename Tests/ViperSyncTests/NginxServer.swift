import Foundation
import Glibc
import ViperTestSupport

/// A real nginx on a free loopback port, serving a temporary document root, for tests.
///
/// The configuration adds `location = /500 { return 500; }`, `location = /304 { return 304; }`, `location = /429` (with `Retry-After: 120`), on HTTPS
/// `location = /to-http` (a redirect to `/fleet.json` over plain HTTP) and a `/secure/` tree that answers 401
/// unless the request carries `Authorization: Bearer s3cret`. The access log records `STATUS URI` per request. With `tls`,
/// the same root is also served over HTTPS on ``tlsPort``, with a certificate signed by a test CA for
/// `tlsSubjectAltName` (by default 127.0.0.1).
final class NginxServer {
    /// The temporary directory holding the configuration, logs and document root.
    let directory: URL
    /// The document root.
    let root: URL
    /// The listening port on 127.0.0.1.
    let port: Int
    /// The HTTPS port on 127.0.0.1, when started with `tls`.
    let tlsPort: Int?
    /// The PEM file of the CA that signed the HTTPS certificate, when started with `tls`.
    let caFile: String?
    private let process: Process

    /// `http://127.0.0.1:PORT`.
    var baseURL: String { "http://127.0.0.1:\(self.port)" }

    /// `https://127.0.0.1:TLSPORT`, when started with `tls`.
    var tlsBaseURL: String? { self.tlsPort.map { "https://127.0.0.1:\($0)" } }

    /// Starts nginx and returns once it accepts connections.
    init(tls: Bool = false, tlsSubjectAltName: String = "IP:127.0.0.1") async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "viper-nginx-\(UUID().uuidString)"
        )
        let root = directory.appendingPathComponent("root")
        let temporary = directory.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("secure"),
            withIntermediateDirectories: true
        )
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let path = directory.path
        let authority =
            try tls ? TestCertificateAuthority(directory: directory, subjectAltName: tlsSubjectAltName) : nil
        // Ports are free when picked, but a parallel test may take one before nginx binds it: then try new ones.
        var attempt = 1
        while true {
            try? FileManager.default.removeItem(atPath: "\(path)/error.log")
            let port = try LoopbackPort.free()
            let tlsPort = try authority.map { _ in try LoopbackPort.free() }
            let configurationFile = directory.appendingPathComponent("nginx.conf")
            try Self.configuration(path: path, root: root.path, port: port, tlsPort: tlsPort, authority: authority)
                .write(to: configurationFile, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
            process.arguments = ["-c", configurationFile.path, "-p", path, "-e", "\(path)/error.log"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.runAlone()
            do {
                try await Self.waitUntilAccepting(port: port, process: process, errorLog: "\(path)/error.log")
            } catch let error as NginxStartError where error.log.contains("Address already in use") && attempt < 5 {
                attempt += 1
                continue
            }
            self.directory = directory
            self.root = root
            self.port = port
            self.tlsPort = tlsPort
            self.caFile = authority?.caCertificate
            self.process = process
            return
        }
    }

    /// nginx's configuration: the test server on `port`, and with `authority` the same root over HTTPS on `tlsPort`.
    private static func configuration(
        path: String,
        root: String,
        port: Int,
        tlsPort: Int?,
        authority: TestCertificateAuthority?
    ) -> String {
        var tlsServer = ""
        if let authority, let tlsPort {
            tlsServer = """
                    server {
                        listen 127.0.0.1:\(tlsPort) ssl;
                        ssl_certificate \(authority.serverCertificate);
                        ssl_certificate_key \(authority.serverKey);
                        root \(root);
                        location = /to-http { return 302 http://127.0.0.1:\(port)/fleet.json; }
                    }
                """
        }
        return """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(path)/nginx.pid;
            error_log \(path)/error.log info;
            events { worker_connections 64; }
            http {
                log_format viper '$status $request_uri';
                access_log \(path)/access.log viper;
                client_body_temp_path \(path)/tmp/body;
                proxy_temp_path \(path)/tmp/proxy;
                fastcgi_temp_path \(path)/tmp/fastcgi;
                uwsgi_temp_path \(path)/tmp/uwsgi;
                scgi_temp_path \(path)/tmp/scgi;
                default_type application/json;
                server {
                    listen 127.0.0.1:\(port);
                    root \(root);
                    location = /500 { return 500; }
                    location = /304 { return 304; }
                    location = /429 { add_header Retry-After 120 always; return 429; }
                    location = /loop-a { return 302 /loop-b; }
                    location = /loop-b { return 302 /loop-a; }
                    location ~ ^/hop/(.*)$ { return 302 /hop/$1x; }
                    location = /to-file { return 302 file:///etc/passwd; }
                    location = /to-credentials { return 302 http://fleetuser:S3CRETPW@127.0.0.1:$server_port/fleet.json; }
                    location ~ ^/to-port/([0-9]+)$ { return 302 http://127.0.0.1:$1/fleet.json; }
                    location = /to-fleet { return 301 /fleet.json; }
                    location /secure/ {
                        if ($http_authorization != "Bearer s3cret") { return 401; }
                    }
                }
            \(tlsServer)
            }

            """
    }

    deinit {
        self.stop()
        try? FileManager.default.removeItem(at: self.directory)
    }

    /// Stops nginx and waits for it to exit. SIGKILL, because the test runner may start children with SIGTERM
    /// blocked, and single-process nginx (`master_process off`) never unblocks it.
    func stop() {
        guard self.process.isRunning else { return }
        kill(self.process.processIdentifier, SIGKILL)
        self.process.waitUntilExit()
    }

    /// Writes `contents` at `path` under the root, with a modification time `age` seconds after the previous write,
    /// so that nginx's ETag (mtime and size) changes even within one second.
    func write(_ contents: String, to path: String) throws {
        let file = self.root.appendingPathComponent(path)
        let previous = (try? FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate]) as? Date
        try Data(contents.utf8).write(to: file)
        let modified = max(Date(), (previous ?? .distantPast).addingTimeInterval(2))
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: file.path)
    }

    /// The access log lines so far, `STATUS URI` each.
    func accessLog() -> [String] {
        let text = (try? String(contentsOf: self.directory.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// Waits (up to `timeout`) until the access log holds `count` lines, and returns them.
    func accessLog(count: Int, timeout: Duration = .seconds(60)) async throws -> [String] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let lines = self.accessLog()
            if lines.count >= count || ContinuousClock.now >= deadline { return lines }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Whether something accepts TCP connections on the loopback `port`.
    static func accepts(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    private static func waitUntilAccepting(port: Int, process: Process, errorLog: String) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !Self.accepts(port: port) {
            guard process.isRunning, ContinuousClock.now < deadline else {
                let log = (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? ""
                kill(process.processIdentifier, SIGKILL)
                throw NginxStartError(log: log)
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// nginx did not start; `log` is its error log.
struct NginxStartError: Error, CustomStringConvertible {
    var log: String
    var description: String { "nginx did not start: \(self.log)" }
}

import Foundation
import ViperTestSupport

/// A throwaway CA and a server certificate it signed, made with the `openssl` command.
struct TestCertificateAuthority {
    /// The CA's certificate (PEM): what a client trusts with `remote-ca-file`.
    let caCertificate: String
    /// The server's certificate (PEM), for the names given to ``init(directory:subjectAltName:)``.
    let serverCertificate: String
    /// The server's private key (PEM).
    let serverKey: String

    /// Writes the CA and the server certificate into `directory`; `subjectAltName` names what the certificate is
    /// for, in openssl's syntax (`IP:127.0.0.1`, `DNS:config.example.org`).
    init(directory: URL, subjectAltName: String) throws {
        let path = directory.path
        self.caCertificate = "\(path)/ca.pem"
        self.serverCertificate = "\(path)/server.pem"
        self.serverKey = "\(path)/server.key"
        let extensions = "\(path)/server.ext"
        try Data("subjectAltName = \(subjectAltName)\n".utf8).write(to: URL(fileURLWithPath: extensions))
        try Self.openssl([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=viper test CA",
            "-keyout", "\(path)/ca.key", "-out", self.caCertificate,
        ])
        try Self.openssl([
            "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=viper test server",
            "-keyout", self.serverKey, "-out", "\(path)/server.csr",
        ])
        try Self.openssl([
            "x509", "-req", "-in", "\(path)/server.csr", "-CA", self.caCertificate, "-CAkey", "\(path)/ca.key",
            "-CAcreateserial", "-days", "2", "-extfile", extensions, "-out", self.serverCertificate,
        ])
    }

    /// Runs `openssl` with `arguments`; throws with its output when it fails.
    private static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        let output = try ProcessStarts.serialized {
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.runAlone()
            return output
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(
                .fileWriteUnknown,
                userInfo: [NSLocalizedDescriptionKey: "openssl \(arguments[0]): \(text)"]
            )
        }
    }
}

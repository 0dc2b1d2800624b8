import Foundation
import Glibc
import Testing
import ViperTestSupport

@testable import ViperSync

/// The files an HTTP(S) source reads at each attempt, `remote-token-file` and `remote-ca-file`: every failure names
/// the file, the key and the reason in words, and none waits on a FIFO.
@Suite("Token and CA files of an HTTP(S) source")
struct HTTPCredentialFileTests {
    /// The message `body` fails with, or "read" when it reads the file, within 60 s (a FIFO blocked it forever).
    private static func failure(_ body: @escaping @Sendable () throws -> Void) async throws -> String? {
        try await BlockingCall.result(within: 60) { () -> String in
            do {
                try body()
                return "read"
            } catch {
                return "\(error)"
            }
        }
    }

    @Test("a missing CA file is named with its key and the reason")
    func missingCAFile() async throws {
        try await TemporaryDirectory.with { directory in
            let path = "\(directory)/absent.pem"
            let message = try await Self.failure { _ = try HTTPCAFile.load(path) }
            #expect(
                message
                    == "cannot read the CA file \(path) (remote-ca-file): open: No such file or directory"
            )
        }
    }

    @Test("a CA file that is not PEM is named, in words rather than a TLS library's code")
    func caFileNotPEM() async throws {
        try await TemporaryDirectory.with { directory in
            let path = "\(directory)/ca.pem"
            try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: path))
            let message = try await Self.failure { _ = try HTTPCAFile.load(path) }
            #expect(
                message
                    == "the CA file \(path) (remote-ca-file) is not a PEM file of certificates (it has no "
                    + "-----BEGIN CERTIFICATE----- line)"
            )
        }
    }

    @Test("a CA file with a damaged PEM block is named")
    func caFileDamaged() async throws {
        try await TemporaryDirectory.with { directory in
            let path = "\(directory)/ca.pem"
            let damaged = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
            try Data(damaged.utf8).write(to: URL(fileURLWithPath: path))
            let message = try await Self.failure { _ = try HTTPCAFile.load(path) }
            #expect(
                message
                    == "the CA file \(path) (remote-ca-file) holds a certificate that does not parse (a damaged PEM block)"
            )
        }
    }

    @Test("a CA file that is a FIFO is refused at once, not waited on")
    func caFileFIFO() async throws {
        try await TemporaryDirectory.with { directory in
            let path = "\(directory)/ca.pem"
            try #require(mkfifo(path, 0o644) == 0)
            let message = try await Self.failure { _ = try HTTPCAFile.load(path) }
            #expect(
                message == "cannot read the CA file \(path) (remote-ca-file): it is a FIFO, not a regular file",
                "reading a FIFO as the CA file did not end within 60 s"
            )
        }
    }

    @Test("a bearer token file that is a FIFO is refused at once, not waited on")
    func tokenFileFIFO() async throws {
        try await TemporaryDirectory.with { directory in
            let path = "\(directory)/token"
            try #require(mkfifo(path, 0o600) == 0)
            let message = try await Self.failure { _ = try HTTPTokenFile.load(path) }
            #expect(
                message
                    == "cannot read the bearer token file \(path) (remote-token-file): it is a FIFO, not a regular file",
                "reading a FIFO as the token file did not end within 60 s"
            )
        }
    }

    @Test("a missing, empty or oversized bearer token file is named with its key and the reason")
    func tokenFileProblems() async throws {
        try await TemporaryDirectory.with { directory in
            let absent = "\(directory)/absent"
            let missing = try await Self.failure { _ = try HTTPTokenFile.load(absent) }
            #expect(
                missing
                    == "cannot read the bearer token file \(absent) (remote-token-file): open: No such file or directory"
            )
            let empty = "\(directory)/empty"
            try Data("\n".utf8).write(to: URL(fileURLWithPath: empty))
            let blank = try await Self.failure { _ = try HTTPTokenFile.load(empty) }
            #expect(blank == "the bearer token file \(empty) (remote-token-file) is empty")
            let large = "\(directory)/large"
            try Data(repeating: 0x61, count: HTTPTokenFile.maximumSize + 1).write(to: URL(fileURLWithPath: large))
            let oversized = try await Self.failure { _ = try HTTPTokenFile.load(large) }
            #expect(oversized == "the bearer token file \(large) (remote-token-file) is larger than 65536 bytes")
        }
    }

    @Test("a directory as the token file is named with what it is")
    func tokenFileDirectory() async throws {
        try await TemporaryDirectory.with { directory in
            let message = try await Self.failure { _ = try HTTPTokenFile.load(directory) }
            #expect(
                message
                    == "cannot read the bearer token file \(directory) (remote-token-file): it is a directory, "
                    + "not a regular file"
            )
        }
    }
}

import Glibc
import ViperPOSIX

/// Reads a bearer token from a file such as a systemd credential (`$CREDENTIALS_DIRECTORY/NAME`).
enum HTTPTokenFile {
    /// The largest token file read.
    static let maximumSize = 64 << 10

    /// The file's content with trailing whitespace and newlines trimmed.
    static func load(_ path: String) throws(RemoteSyncError) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw RemoteSyncError.configuration(
                "cannot read bearer token file \(path): \(SystemErrorText.describe(errno))"
            )
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw RemoteSyncError.configuration(
                    "cannot read bearer token file \(path): \(SystemErrorText.describe(errno))"
                )
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            guard bytes.count <= Self.maximumSize else {
                throw RemoteSyncError.configuration(
                    "bearer token file \(path) is larger than \(Self.maximumSize) bytes"
                )
            }
        }
        while let last = bytes.last, last == 0x0A || last == 0x0D || last == 0x20 || last == 0x09 {
            bytes.removeLast()
        }
        let token = String(decoding: bytes, as: UTF8.self)
        guard !token.isEmpty else { throw RemoteSyncError.configuration("bearer token file \(path) is empty") }
        guard !token.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw RemoteSyncError.configuration("bearer token file \(path) contains control characters")
        }
        return token
    }
}

import Glibc
import ViperPOSIX

/// Reads a bearer token from a file such as a systemd credential (`$CREDENTIALS_DIRECTORY/NAME`).
enum HTTPTokenFile {
    /// The largest token file read.
    static let maximumSize = 64 << 10

    /// The file's content with trailing whitespace and newlines trimmed. Never waits on a FIFO or a device (see
    /// ``RegularFile``); every error names the file, the `remote-token-file` key and the reason.
    static func load(_ path: String) throws(RemoteSyncError) -> String {
        let named = "the bearer token file \(path) (remote-token-file)"
        var bytes = try HTTPCredentialFile.read(path, named: named, limit: Self.maximumSize)
        while let last = bytes.last, last == 0x0A || last == 0x0D || last == 0x20 || last == 0x09 {
            bytes.removeLast()
        }
        let token = String(decoding: bytes, as: UTF8.self)
        guard !token.isEmpty else { throw RemoteSyncError.configuration("\(named) is empty") }
        guard !token.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw RemoteSyncError.configuration("\(named) contains control characters")
        }
        return token
    }
}

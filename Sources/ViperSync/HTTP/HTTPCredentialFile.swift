import Glibc
import ViperPOSIX

/// Reads a file the HTTP(S) source needs at each attempt (the bearer token, the CA certificates) without ever
/// waiting on it: a FIFO or a device at its path is refused at once rather than blocking the sync forever in `open`.
enum HTTPCredentialFile {
    /// The file's bytes; `named` says what the file is for, e.g. "the CA file /etc/ca.pem (remote-ca-file)".
    ///
    /// - Throws: ``RemoteSyncError/configuration(_:)``, "cannot read NAMED: open: Permission denied", "…: it is a
    ///   FIFO, not a regular file", "…: open: No such file or directory", or "NAMED is larger than LIMIT bytes".
    static func read(_ path: String, named: String, limit: Int) throws(RemoteSyncError) -> [UInt8] {
        let bytes: [UInt8]?
        do {
            bytes = try RegularFile.contents(of: path, limit: limit)
        } catch .system(operation: "read", errno: EFBIG) {
            throw RemoteSyncError.configuration("\(named) is larger than \(limit) bytes")
        } catch {
            throw RemoteSyncError.configuration("cannot read \(named): \(error)")
        }
        guard let bytes else {
            throw RemoteSyncError.configuration("cannot read \(named): open: \(SystemErrorText.describe(ENOENT))")
        }
        return bytes
    }
}

import Glibc
import ViperPOSIX

/// Reads a target's template: a regular file of the targets directory itself, never through a symbolic link (one
/// pointing at `/etc/shadow` would copy it into a file anyone can read), nor a FIFO or a device
/// (``RegularFile``).
enum TemplateFile {
    /// The bytes of the template at `path`; `target` is the target file, for the message.
    static func read(_ path: String, target: String) throws(ApplyError) -> [UInt8] {
        var status = stat()
        if lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK {
            throw .badTarget(
                file: target,
                reason: "the template \(path) is a symbolic link: a template must be a regular file in the targets"
                    + " directory (copy the file there)"
            )
        }
        do {
            guard let bytes = try RegularFile.contents(of: path) else {
                throw RegularFile.Failure.system(operation: "open", errno: ENOENT)
            }
            return bytes
        } catch {
            throw .badTarget(file: target, reason: "cannot read the template \(path): \(error)")
        }
    }
}

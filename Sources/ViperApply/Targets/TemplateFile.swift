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
            guard let bytes = try RegularFile.contents(of: path, limit: Self.sizeLimit) else {
                throw RegularFile.Failure.system(operation: "open", errno: ENOENT)
            }
            try Self.check(bytes, path: path, target: target)
            return bytes
        } catch let error as ApplyError {
            throw error
        } catch RegularFile.Failure.system(_, EFBIG) {
            throw .badTarget(
                file: target,
                reason: "the template \(path) is larger than \(Self.sizeLimit >> 20) MiB, the most a template may hold"
            )
        } catch {
            throw .badTarget(file: target, reason: "cannot read the template \(path): \(error)")
        }
    }

    /// The largest template, in bytes: a template is rendered at every change of a value it reads, and what it
    /// renders is bounded by its size.
    static let sizeLimit = 1 << 20

    /// Throws for a template the applier would not copy as it is: not UTF-8 (its bytes
    /// would be replaced by U+FFFD in the file), or holding a NUL byte (no configuration file expects one).
    static func check(_ bytes: [UInt8], path: String, target: String) throws(ApplyError) {
        func bad(_ reason: String) -> ApplyError { .badTarget(file: target, reason: "the template \(path) \(reason)") }
        if let nul = bytes.firstIndex(of: 0) {
            throw bad("contains a NUL byte (at byte \(nul + 1)): a configuration file holds text")
        }
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        var offset = 0
        decoding: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                offset += UTF8.width(scalar)
            case .emptyInput:
                break decoding
            case .error:
                throw bad(
                    "is not valid UTF-8 (at byte \(offset + 1)): save it as UTF-8, it is copied into the file as it is"
                )
            }
        }
    }
}

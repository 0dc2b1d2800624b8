import Glibc
import ViperPOSIX

/// A new file beside a destination (`.NAME.viper-apply.XXXXXX`), made in the destination's open directory, written,
/// fsynced and kept open: either the copy a check command reads (``verifyUnchanged(_:check:)`` tells whether the
/// check changed it; it is then discarded), or the file renamed into place, which no check ever had.
struct TemporaryFile {
    /// The directory it is in.
    let directory: DestinationDirectory
    /// Its name in ``directory``.
    let name: String
    /// Its descriptor, open for reading and writing until ``close()`` or ``discard()``.
    let descriptor: Int32

    /// Its path, for messages and commands.
    var path: String { self.directory.path(of: self.name) }

    /// The characters of the random end of its name, as `mkstemp` uses.
    private static let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    /// Creates a file in `directory` beside the file `name`, holding `bytes`, with the owner (when given and running
    /// as root) and mode, fsynced. On failure, nothing is left behind.
    static func create(
        _ bytes: [UInt8],
        in directory: DestinationDirectory,
        beside name: String,
        owner: UInt32?,
        group: UInt32?,
        mode: UInt32
    ) throws(ApplyError) -> TemporaryFile {
        var descriptor: Int32 = -1
        var temporary = ""
        for _ in 0..<100 {
            temporary = FileIO.ownPrefix(of: name) + String((0..<6).map { _ in Self.letters.randomElement()! })
            descriptor = openat(
                directory.descriptor,
                temporary,
                O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                0o600
            )
            if descriptor >= 0 || errno != EEXIST { break }
        }
        guard descriptor >= 0 else {
            throw .file(path: directory.path, operation: "create a file in", reason: SystemErrorText.describe(errno))
        }
        // Locked while it exists under this name: another applier writing the same files leaves it alone.
        flock(descriptor, LOCK_EX)
        let file = TemporaryFile(directory: directory, name: temporary, descriptor: descriptor)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw file.fail("write")
            }
            offset += written
        }
        do throws(ApplyError) {
            try file.setAttributes(owner: owner, group: group, mode: mode)
        } catch {
            file.discard()
            throw error
        }
        if fsync(descriptor) != 0 { throw file.fail("fsync") }
        return file
    }

    /// After the check, whose verdict must be on the rendered bytes: its name must still be this file, and its
    /// bytes must still be `bytes` (a check that replaced or changed the file it was given names `check` in the
    /// error). The file is left for the caller to ``discard()``.
    func verifyUnchanged(_ bytes: [UInt8], check: [String]) throws(ApplyError) {
        let command = check.joined(separator: " ")
        var opened = stat()
        guard fstat(self.descriptor, &opened) == 0 else {
            throw .file(path: self.path, operation: "stat", reason: SystemErrorText.describe(errno))
        }
        guard let named = self.directory.status(of: self.name), named.st_dev == opened.st_dev,
            named.st_ino == opened.st_ino
        else {
            throw .checkChangedFile(command: command, change: "it removed or replaced the file it was given")
        }
        var content: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while content.count <= bytes.count {
            let count = pread(self.descriptor, &chunk, chunk.count, off_t(content.count))
            if count < 0 {
                if errno == EINTR { continue }
                throw .file(path: self.path, operation: "read", reason: SystemErrorText.describe(errno))
            }
            if count == 0 { break }
            content.append(contentsOf: chunk[0..<count])
        }
        guard content == bytes else {
            throw .checkChangedFile(command: command, change: "the file's bytes are not the rendered ones any more")
        }
    }

    /// Closes the descriptor; the file stays.
    func close() throws(ApplyError) {
        guard Glibc.close(self.descriptor) == 0 else {
            let error = ApplyError.file(path: self.path, operation: "close", reason: SystemErrorText.describe(errno))
            self.directory.discard(self.name)
            throw error
        }
    }

    /// Closes the descriptor and removes the file.
    func discard() {
        Glibc.close(self.descriptor)
        self.directory.discard(self.name)
    }

    /// Sets the permission bits, then the owner (when given and running as root), on the descriptor: in that order,
    /// so that `CAP_CHOWN` is the capability needed to give it away (a `chmod` of a file root no longer owns needs
    /// `CAP_FOWNER`, which the bundled unit's documented drop-in does not grant). A mode has no set-user-ID bits for
    /// `chown` to clear.
    private func setAttributes(owner: UInt32?, group: UInt32?, mode: UInt32) throws(ApplyError) {
        func failure(_ operation: String) -> ApplyError {
            .file(path: self.path, operation: operation, reason: SystemErrorText.describe(errno))
        }
        if fchmod(self.descriptor, mode_t(mode)) != 0 { throw failure("chmod") }
        if geteuid() == 0, let owner, let group, fchown(self.descriptor, owner, group) != 0 { throw failure("chown") }
    }

    /// The error of `operation` (from `errno`), once the file is discarded.
    private func fail(_ operation: String) -> ApplyError {
        let error = ApplyError.file(path: self.path, operation: operation, reason: SystemErrorText.describe(errno))
        self.discard()
        return error
    }
}

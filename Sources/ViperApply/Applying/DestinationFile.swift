import Glibc
import ViperPOSIX

/// What is at a target's destination before it is applied, read without following a symbolic link or blocking on
/// a FIFO: the applier replaces regular files and symbolic links (the link itself, never the file it points to),
/// and refuses anything else.
struct DestinationFile {
    enum Kind: Equatable {
        case missing
        case regular
        case symbolicLink
    }

    /// The largest destination read to compare with: configuration files are small. A larger one is not read: it
    /// differs from what was rendered, and is replaced.
    static let sizeLimit = 16 << 20

    var kind: Kind
    /// A regular file's bytes; nil for one over ``sizeLimit``, which is not read.
    var bytes: [UInt8]?
    /// A regular file's permission bits, owner and group.
    var mode: UInt32 = 0
    var owner: UInt32 = 0
    var group: UInt32 = 0

    /// Whether the file already holds `bytes` with `target`'s mode (and, when running as root, its owner and group).
    func holds(_ bytes: [UInt8], for target: ApplyTarget, asRoot: Bool = geteuid() == 0) -> Bool {
        guard self.kind == .regular, self.bytes == bytes, self.mode == target.mode else { return false }
        return !asRoot || (self.owner == target.owner && self.group == target.group)
    }

    /// What applying `target` changes besides the bytes: the mode (`mode 0666 -> 0600`), and when running as root
    /// the owner and group (`owner root -> nobody`), or a symbolic link replaced by a regular file. Empty for a file
    /// that is missing, or has the target's mode (and owner and group).
    func changes(to target: ApplyTarget, asRoot: Bool = geteuid() == 0) -> [String] {
        switch self.kind {
        case .missing: return []
        case .symbolicLink: return ["symbolic link -> regular file"]
        case .regular: break
        }
        var changes: [String] = []
        if self.mode != target.mode {
            changes.append("mode \(Self.octal(self.mode)) -> \(Self.octal(target.mode))")
        }
        if asRoot && self.owner != target.owner {
            changes.append("owner \(AccountName.user(self.owner)) -> \(AccountName.user(target.owner))")
        }
        if asRoot && self.group != target.group {
            changes.append("group \(AccountName.group(self.group)) -> \(AccountName.group(target.group))")
        }
        return changes
    }

    /// `mode` as the target files write it: `0644`.
    static func octal(_ mode: UInt32) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// Reads what is at `name` in `directory`.
    static func inspect(_ name: String, in directory: DestinationDirectory) throws(ApplyError) -> DestinationFile {
        let path = directory.path(of: name)
        var info = stat()
        guard fstatat(directory.descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
            if errno == ENOENT { return DestinationFile(kind: .missing) }
            throw .file(path: path, operation: "read", reason: SystemErrorText.describe(errno))
        }
        switch info.st_mode & S_IFMT {
        case S_IFLNK: return DestinationFile(kind: .symbolicLink)
        case S_IFREG: break
        default:
            throw .file(
                path: path,
                operation: "replace",
                reason:
                    "it is \(RegularFile.kind(of: info.st_mode)), not a regular file (the applier replaces only regular"
                    + " files and symbolic links)"
            )
        }
        let descriptor = openat(directory.descriptor, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else {
            throw .file(path: path, operation: "read", reason: SystemErrorText.describe(errno))
        }
        defer { close(descriptor) }
        // What was opened is what was looked at: not a file swapped in since.
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw .file(path: path, operation: "read", reason: "it changed while it was read")
        }
        var file = DestinationFile(
            kind: .regular,
            bytes: nil,
            mode: UInt32(info.st_mode & 0o7777),
            owner: info.st_uid,
            group: info.st_gid
        )
        // Too large to be what a template renders: it differs, whatever it holds.
        guard info.st_size <= Self.sizeLimit else { return file }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count <= Self.sizeLimit {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw .file(path: path, operation: "read", reason: SystemErrorText.describe(errno))
            }
            if count == 0 {
                file.bytes = bytes
                return file
            }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return file  // it grew past the limit while it was read
    }
}

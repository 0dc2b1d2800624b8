import Glibc
import ViperPOSIX

/// The file operations applying needs, on raw descriptors: whole reads and writes, fsync, atomic replacement.
enum FileIO {
    /// The file's bytes, or nil when it does not exist.
    static func read(_ path: String) throws(ApplyError) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw .file(path: path, operation: "read", reason: SystemErrorText.describe(errno))
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = Glibc.read(descriptor, &chunk, chunk.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw .file(path: path, operation: "read", reason: SystemErrorText.describe(errno))
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Creates `path` and its missing parents, 0755 whatever the umask (a service must read its configuration,
    /// also when the applier was started by hand under `umask 077`).
    static func makeDirectories(_ path: String) throws(ApplyError) {
        var current = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            current += "/" + part
            if mkdir(current, 0o755) == 0 {
                if chmod(current, 0o755) != 0 {
                    throw .file(path: current, operation: "chmod", reason: SystemErrorText.describe(errno))
                }
            } else if errno != EEXIST {
                throw .file(path: current, operation: "create the directory", reason: SystemErrorText.describe(errno))
            }
        }
    }

    /// The word in the names of the applier's own files beside a destination (`.NAME.viper-apply.XXXXXX`,
    /// `.NAME.viper-apply.previous`): only names with it are ever removed as leftovers, never an administrator's
    /// `.NAME.backup` or `.NAME.orig`.
    static let marker = "viper-apply"

    /// The longest file name Linux's file systems take, in bytes (`NAME_MAX`).
    static let nameLimit = 255

    /// The longest destination file name that can be applied, in bytes: 233, so that the longest of the applier's
    /// own names beside it, `.NAME.viper-apply.previous` (`.NAME.viper-apply.XXXXXX` is 2 bytes shorter), fits in
    /// ``nameLimit``.
    static let longestDestinationName = Self.nameLimit - ".\(Self.marker).previous".utf8.count - 1

    /// The beginning of the names of the applier's own files beside `path`: `.NAME.viper-apply.`.
    static func ownPrefix(of path: String) -> String {
        let name = path[path.index(after: path.lastIndex(of: "/") ?? path.startIndex)...]
        return "\(Self.directory(of: path))/.\(name).\(Self.marker)."
    }

    /// Writes `bytes` to a new temporary file in the directory of `path` (`.NAME.viper-apply.XXXXXX`), with the
    /// owner (when given and running as root) and mode, fsynced; returns its path. On failure, nothing is left behind.
    static func writeTemporary(
        _ bytes: [UInt8],
        beside path: String,
        owner: UInt32?,
        group: UInt32?,
        mode: UInt32
    ) throws(ApplyError) -> String {
        let file = try TemporaryFile.create(bytes, beside: path, owner: owner, group: group, mode: mode)
        try file.close()
        return file.path
    }

    /// Renames `temporary` over `path` and fsyncs the directory, so that the new file survives a crash.
    static func replace(_ path: String, with temporary: String) throws(ApplyError) {
        guard rename(temporary, path) == 0 else {
            throw .file(path: path, operation: "replace", reason: SystemErrorText.describe(errno))
        }
        try Self.syncDirectory(of: path)
    }

    /// Removes `path` and fsyncs its directory.
    static func remove(_ path: String) throws(ApplyError) {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw .file(path: path, operation: "remove", reason: SystemErrorText.describe(errno))
        }
        try Self.syncDirectory(of: path)
    }

    static func syncDirectory(of path: String) throws(ApplyError) {
        let directory = Self.directory(of: path)
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .file(path: directory, operation: "open", reason: SystemErrorText.describe(errno))
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw .file(path: directory, operation: "fsync", reason: SystemErrorText.describe(errno))
        }
    }

    /// The name the entry at `path` is kept under while its replacement is reloaded: `.NAME.viper-apply.previous`
    /// beside it.
    static func previousName(of path: String) -> String {
        Self.ownPrefix(of: path) + "previous"
    }

    /// Keeps the entry at `path` (a regular file or a symbolic link, not what it points to) under a second name, a
    /// hard link: the same inode, with its owner, mode and other links, so that putting it back restores it exactly.
    static func keepPrevious(_ path: String) throws(ApplyError) -> String {
        let previous = Self.previousName(of: path)
        unlink(previous)  // left by a crash
        guard linkat(AT_FDCWD, path, AT_FDCWD, previous, 0) == 0 else {
            throw .file(path: previous, operation: "keep the previous file as", reason: SystemErrorText.describe(errno))
        }
        return previous
    }

    /// Puts the entry kept by ``keepPrevious(_:)`` back at `path`.
    static func restore(_ path: String, from previous: String) throws(ApplyError) {
        try Self.replace(path, with: previous)
    }

    /// Whether there is an entry at `path` (a symbolic link counts, not what it points to).
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Removes what a crash can leave beside `path`: temporary files (`.NAME.viper-apply.XXXXXX`) and, unless it is
    /// kept for a reload to finish, a kept previous entry (`.NAME.viper-apply.previous`). Nothing without the marker
    /// is touched: `.NAME.backup` is an administrator's file.
    static func removeLeftovers(beside path: String, keepingPrevious: Bool = false) {
        let directory = Self.directory(of: path)
        let prefix = String(Self.ownPrefix(of: path).dropFirst(directory.count + 1))
        guard let stream = opendir(directory) else { return }
        defer { closedir(stream) }
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasPrefix(prefix) else { continue }
            let suffix = name.dropFirst(prefix.count)
            let temporary = suffix.count == 6 && suffix.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
            guard temporary || (suffix == "previous" && !keepingPrevious) else { continue }
            unlink(directory + "/" + name)
        }
    }

    /// Refuses a destination whose directory, below `root`, passes through a symbolic link: the link would be
    /// resolved on the host, outside the root.
    static func checkConfined(_ path: String, root: String) throws(ApplyError) {
        guard !root.isEmpty, path.hasPrefix(root + "/") else { return }
        var current = root
        for part in Self.directory(of: path).dropFirst(root.count).split(separator: "/") {
            current += "/" + part
            var info = stat()
            guard lstat(current, &info) == 0 else { return }  // missing: created as a directory
            if info.st_mode & S_IFMT == S_IFLNK {
                throw .file(
                    path: path,
                    operation: "write",
                    reason:
                        "\(current) is a symbolic link, which --root does not follow (it would lead out of the root)"
                )
            }
        }
    }

    /// Writes `bytes` to `path` atomically and durably (temporary file, fsync, rename, directory fsync).
    static func writeAtomically(_ bytes: [UInt8], to path: String, mode: UInt32) throws(ApplyError) {
        let temporary = try Self.writeTemporary(bytes, beside: path, owner: nil, group: nil, mode: mode)
        do {
            try Self.replace(path, with: temporary)
        } catch {
            unlink(temporary)
            throw error
        }
    }
}

import Glibc
import ViperPOSIX

/// The file operations applying needs, on raw descriptors: whole reads and writes, fsync, atomic replacement.
enum FileIO {
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

    /// The file name of `path`: what follows its last `/`.
    static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// The beginning of the names of the applier's own files beside the file `name`: `.NAME.viper-apply.`.
    static func ownPrefix(of name: String) -> String {
        ".\(name).\(Self.marker)."
    }

    /// The name the entry `name` is kept under, beside it, while its replacement is reloaded:
    /// `.NAME.viper-apply.previous`.
    static func previousName(of name: String) -> String {
        Self.ownPrefix(of: name) + "previous"
    }

    /// Removes what a crash can leave beside the file `name` in `directory`: temporary files
    /// (`.NAME.viper-apply.XXXXXX`) that no one uses (another applier writing the same file holds its own locked,
    /// see ``DestinationDirectory/mayBeInUse(_:)``) and, unless it is kept for a reload to finish, a kept previous
    /// entry (`.NAME.viper-apply.previous`). Nothing without the marker is touched: `.NAME.backup` is an
    /// administrator's file.
    static func removeLeftovers(of name: String, in directory: DestinationDirectory, keepingPrevious: Bool = false) {
        let prefix = Self.ownPrefix(of: name)
        for entry in directory.names() where entry.hasPrefix(prefix) {
            let suffix = entry.dropFirst(prefix.count)
            let temporary = suffix.count == 6 && suffix.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
            guard temporary || (suffix == "previous" && !keepingPrevious) else { continue }
            if temporary && directory.mayBeInUse(entry) { continue }
            directory.discard(entry)
        }
    }

    /// Writes `bytes` to `path` atomically and durably (temporary file, fsync, rename, directory fsync). The new
    /// file is made with `O_EXCL | O_NOFOLLOW` and renamed over the entry at `path` in its open directory, so nothing
    /// is ever written through a symbolic link; a link at `path` is not replaced either: `refusingLink()` is thrown.
    static func writeAtomically(
        _ bytes: [UInt8],
        to path: String,
        mode: UInt32,
        refusingLink: () -> ApplyError
    ) throws(ApplyError) {
        guard let directory = try DestinationDirectory.open(containing: path, creating: false) else {
            throw .file(path: Self.directory(of: path), operation: "create a file in", reason: "it does not exist")
        }
        let name = Self.name(of: path)
        if let status = directory.status(of: name), status.st_mode & S_IFMT == S_IFLNK { throw refusingLink() }
        let file = try TemporaryFile.create(bytes, in: directory, beside: name, owner: nil, group: nil, mode: mode)
        do {
            // Renamed while open, so locked: no other applier takes it for a leftover.
            try directory.rename(file.name, over: name)
        } catch {
            file.discard()
            throw error
        }
        try file.close()
    }
}

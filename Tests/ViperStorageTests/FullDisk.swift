import Foundation
import Glibc
import ViperTestSupport

/// A small tmpfs mounted on a temporary directory (needs root), to run out of space for real; unmounted and removed
/// when released.
final class FullDisk: Sendable {
    let path: String

    /// Whether this process may mount file systems.
    static var isAvailable: Bool { getuid() == 0 && FileManager.default.fileExists(atPath: "/bin/mount") }

    init(size: String = "64k") throws {
        let template = FileManager.default.temporaryDirectory.path + "/viper-fulldisk-XXXXXX"
        var bytes = Array(template.utf8CString)
        guard let created = mkdtemp(&bytes) else { throw FullDiskError("mkdtemp failed: \(errno)") }
        self.path = String(cString: created)
        try Self.run(["/bin/mount", "-t", "tmpfs", "-o", "size=\(size),mode=0755", "tmpfs", self.path])
    }

    deinit {
        try? Self.run(["/bin/umount", "--lazy", self.path])
        rmdir(self.path)
    }

    /// Fills the file system with `filler` until a write fails for lack of space.
    func fill() throws {
        let descriptor = open("\(self.path)/filler", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw FullDiskError("open filler: \(errno)") }
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0x2E, count: 4096)
        var size = chunk.count
        while size > 0 {
            let written = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, size) }
            if written < 0 {
                guard errno == ENOSPC else { throw FullDiskError("write filler: \(errno)") }
                size /= 2
            }
        }
    }

    /// Frees the space `fill()` took.
    func free() {
        unlink("\(self.path)/filler")
    }

    /// Remounts the file system read-only (`true`) or read-write.
    func remount(readOnly: Bool) throws {
        try Self.run(["/bin/mount", "-o", readOnly ? "remount,ro" : "remount,rw", self.path])
    }

    private static func run(_ command: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        try process.runAlone()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw FullDiskError("\(command.joined(separator: " ")) failed") }
    }
}

struct FullDiskError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

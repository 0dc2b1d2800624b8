import Foundation
public import Glibc

/// File helpers for tests.
public enum Files {
    public static func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true
        )
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    public static func read(_ path: String) throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
    }

    /// What `lstat` says of `path` (a link itself, not what it points to); `nil` when there is nothing there.
    public static func linkStatus(_ path: String) -> stat? {
        var info = stat()
        return lstat(path, &info) == 0 ? info : nil
    }

    public static func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path)
    }

    public static func list(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    /// Size and modification time of every file of a directory, to see that nothing was touched.
    public static func fingerprint(_ directory: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for name in self.list(directory) {
            var info = stat()
            guard stat("\(directory)/\(name)", &info) == 0 else { continue }
            result[name] = "\(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec) \(info.st_ino)"
        }
        return result
    }
}

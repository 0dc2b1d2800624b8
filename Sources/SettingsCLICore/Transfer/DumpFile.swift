import Glibc
package import SettingsAPI
import ViperPOSIX

/// A file as `settingsctl dump` writes it and `settingsctl load` and `diff` read it: the reply of `Dump`,
/// `{"modules": {MODULE: {"revision": N, "values": {SECTION.ITEM: VALUE, …}}, …}}`. Only `values` is read;
/// `revision` and `effective` may be there or not.
package struct DumpFile: Sendable, Hashable {
    /// The values of each module, by key within the module.
    package var modules: [String: [String: JSONValue]]

    /// Reads the file at `path` (`-`: standard input); a file that cannot be read, is not JSON or not shaped like
    /// a dump is a failure naming the file and what is wrong where.
    package static func read(path: String) throws(CLIFailure) -> DumpFile {
        // Shown on one line: a newline in the path cannot make an error look like two.
        let name = path == "-" ? "standard input" : path.isEmpty ? "''" : TableFormatter.printable(path)
        let bytes = try Self.contents(of: path, name: name)
        let json: JSONValue
        do {
            json = try JSONValue(parsing: bytes)
        } catch {
            throw CLIFailure(.failure, "\(name): not JSON: \(error)")
        }
        return try DumpFile(json: json, name: name)
    }

    /// Reads a parsed dump; `name` names it in failures.
    package init(json: JSONValue, name: String) throws(CLIFailure) {
        guard let modules = json["modules"]?.objectValue else {
            throw CLIFailure(.failure, "\(name): expected an object with \"modules\", as settingsctl dump writes")
        }
        var values: [String: [String: JSONValue]] = [:]
        for (module, entry) in modules {
            guard let moduleValues = entry["values"]?.objectValue else {
                throw CLIFailure(.failure, "\(name): modules.\(module): expected an object with \"values\" (an object)")
            }
            values[module] = moduleValues
        }
        self.modules = values
    }

    private static func contents(of path: String, name: String) throws(CLIFailure) -> [UInt8] {
        let descriptor = path == "-" ? 0 : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CLIFailure(.failure, "cannot open \(name): \(SystemErrorText.describe(errno))")
        }
        defer { if descriptor != 0 { close(descriptor) } }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw CLIFailure(.failure, "cannot read \(name): \(SystemErrorText.describe(errno))")
            }
            bytes += chunk[0..<count]
            if bytes.count > Self.maximumSize {
                throw CLIFailure(.failure, "\(name) is larger than \(Self.maximumSize >> 20) MiB")
            }
        }
    }

    /// The largest file read, settingsctl's own bound as for replies (the daemon's max-message-size may be lower).
    static let maximumSize = 16 << 20
}

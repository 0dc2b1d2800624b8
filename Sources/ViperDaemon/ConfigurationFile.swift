import Glibc

/// A `viper-settingsd.conf` file: `key = value` lines, `#` comments, blank lines.
///
/// A line whose first non-blank character is `#` or `;` is a comment, and so is the rest of a line from a `#`
/// that follows a blank (`socket = /run/x.sock  # note`); a `#` inside a word (`https://h/doc.json#v2`) or in a
/// value in double quotes (`"a # b"`) is kept. Lines may end in LF or CRLF. An unknown key, a line without `=`
/// and a key set twice are errors naming the file and line.
public struct ConfigurationFile: Sendable, Equatable {
    /// The keys the daemon understands, with what they mean (for errors and `--help`).
    public static let knownKeys: [String: String] = [
        "modules-dir": "directory of module schemas (NAME.json)",
        "state-dir": "directory of state files",
        "socket": "path of the Unix socket to listen on",
        "log-level": "trace, debug, info, notice, warning, error or critical",
        "max-message-size": "largest client message in bytes",
        "max-connections-per-uid": "connections one user may hold at once",
        "max-connections": "connections all users may hold at once (kept below the descriptor limit)",
        "idle-timeout": "seconds a connection may stay without a call before it is closed; 0 for no limit",
        "max-value-size": "largest string or strings value in bytes (UTF-8), 64 KiB by default",
        "remote": "remote source: https://host/path.json, http://…, or etcd://host:port[,host:port…]/PREFIX",
        "remote-poll-interval": "seconds between polls of an HTTP(S) remote",
        "remote-timeout": "seconds a whole HTTP(S) request (connect, headers and body) may take",
        "sync-min-interval": "seconds after a sync during which a new sync request shares its outcome",
        "remote-token-file": "file holding a bearer token for an HTTP(S) remote",
        "remote-ca-file": "PEM file of CA certificates to trust for an HTTPS remote",
    ]

    /// The values by key.
    public var values: [String: String]
    /// The file's path, to resolve relative paths and name it in errors.
    public var path: String
    /// The line of each key, for errors.
    public var lines: [String: Int] = [:]

    /// Parses the text of a configuration file.
    public init(text: String, path: String) throws(ConfigurationError) {
        self.path = path
        self.values = [:]
        var lineOfKey: [String: Int] = [:]
        // A byte order mark some editors write is not part of the first key.
        let body = text.hasPrefix("\u{FEFF}") ? text.dropFirst() : Substring(text)
        // Lines end in LF, CR LF or CR; other characters Unicode calls line ends (form feed, U+2028) are control
        // characters or text in a value.
        let lines = body.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
        for (index, rawLine) in lines.enumerated() {
            let number = index + 1
            let line = rawLine.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw ConfigurationError("\(path):\(number): expected 'key = value', found '\(line)'")
            }
            let key = line[..<equals].trimmingWhitespace()
            guard !key.isEmpty else {
                throw ConfigurationError("\(path):\(number): expected a key before '=', found '\(line)'")
            }
            guard Self.knownKeys[key] != nil else {
                let known = Self.knownKeys.keys.sorted().joined(separator: ", ")
                throw ConfigurationError("\(path):\(number): unknown setting '\(key)' (known: \(known))")
            }
            if let first = lineOfKey[key] {
                throw ConfigurationError("\(path):\(number): '\(key)' is set twice (first on line \(first))")
            }
            lineOfKey[key] = number
            let value = try Self.value(line[line.index(after: equals)...], path: path, line: number)
            if let control = value.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
                let code = String(control.value, radix: 16, uppercase: true)
                throw ConfigurationError(
                    "\(path):\(number): '\(key)' holds a control character (U+\(String(repeating: "0", count: max(0, 4 - code.count)))\(code)): remove it"
                )
            }
            self.values[key] = value
        }
        self.lines = lineOfKey
    }

    /// The value after `=`: unquoted and without a trailing comment.
    private static func value(_ text: Substring, path: String, line: Int) throws(ConfigurationError) -> String {
        let text = Substring(text.trimmingWhitespace())
        if text.hasPrefix("\"") {
            let rest = text.dropFirst()
            guard let close = rest.firstIndex(of: "\"") else {
                throw ConfigurationError("\(path):\(line): missing the closing '\"' of a quoted value")
            }
            let after = rest[rest.index(after: close)...].trimmingWhitespace()
            guard after.isEmpty || after.hasPrefix("#") else {
                throw ConfigurationError("\(path):\(line): unexpected '\(after)' after a quoted value")
            }
            return String(rest[..<close])
        }
        var previous: Character = " "
        for index in text.indices {
            if text[index] == "#" && previous.isWhitespace {
                return text[..<index].trimmingWhitespace()
            }
            previous = text[index]
        }
        return String(text)
    }

    /// Where `key` is set: `FILE:LINE`, for an error about its value.
    func place(_ key: String) -> String { "\(self.path):\(self.lines[key] ?? 0)" }

    /// A path value, relative paths taken relative to the file's directory; an empty one is an error (it would name
    /// the file's own directory).
    public func pathValue(_ key: String) throws(ConfigurationError) -> String? {
        guard let value = self.values[key] else { return nil }
        guard !value.isEmpty else {
            throw ConfigurationError(
                "\(self.place(key)): '\(key)' is empty: give a path, or leave the line out for the default"
            )
        }
        if value.hasPrefix("/") { return value }
        var directory = self.path.contains("/") ? String(self.path[..<self.path.lastIndex(of: "/")!]) : "."
        // Absolute: the path is shown in logs and to clients (status), who do not share the daemon's directory.
        if !directory.hasPrefix("/") {
            let current = Self.currentDirectory
            directory =
                directory == "."
                ? current : "\(current)/\(directory.hasPrefix("./") ? String(directory.dropFirst(2)) : directory)"
        }
        return "\(directory)/\(value)"
    }
}

extension ConfigurationFile {
    /// The daemon's working directory (`.` when it cannot be told).
    static var currentDirectory: String {
        guard let buffer = getcwd(nil, 0) else { return "." }
        defer { free(buffer) }
        return String(cString: buffer)
    }
}

/// The configuration could not be used; the message names the file, line or flag and what is wrong.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { self.message }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        var slice = Substring(self)
        while slice.first?.isWhitespace == true { slice = slice.dropFirst() }
        while slice.last?.isWhitespace == true { slice = slice.dropLast() }
        return String(slice)
    }
}

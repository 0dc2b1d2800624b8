import Glibc

/// Reads the process environment and the file system through Glibc, without Foundation.
package enum ProcessEnvironment {
    /// The value of the environment variable `name`, or `nil` when it is unset.
    package static func value(_ name: String) -> String? {
        guard let pointer = getenv(name) else { return nil }
        return String(cString: pointer)
    }

    /// Whether something (a file, a socket, a directory) exists at `path`.
    package static func fileExists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// Whether file descriptor `descriptor` is a terminal.
    package static func isTerminal(_ descriptor: Int32) -> Bool {
        isatty(descriptor) == 1
    }

    /// The text of an `errno` value, e.g. "No such file or directory".
    package static func describe(errno code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}

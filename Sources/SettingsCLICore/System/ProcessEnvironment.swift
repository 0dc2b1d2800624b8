import Glibc
import ViperPOSIX

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

    /// The number of columns of the terminal on `descriptor`, or `nil` when it is not a terminal.
    package static func terminalColumns(_ descriptor: Int32) -> Int? {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// The text of an `errno` value, e.g. "No such file or directory".
    package static func describe(errno code: Int32) -> String {
        SystemErrorText.describe(code)
    }
}

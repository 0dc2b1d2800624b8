import Glibc
import ViperPOSIX

/// Standard output or standard error, written with `write(2)`: whole, retrying after signals and short writes,
/// and unbuffered, so that what is written is in the pipe at once (a `watch` event as it happens) and the two
/// streams keep their order.
///
/// settingsctl prints through this rather than `print`, whose variadic `Any` arguments and output stream cost a
/// short-lived process their runtime set-up on every run.
package struct StandardStream: Sendable {
    /// Standard output: the command's result.
    package static let output = StandardStream(descriptor: 1, name: "standard output")
    /// Standard error: messages for people that are not the command's result.
    package static let error = StandardStream(descriptor: 2, name: "standard error")

    /// The file descriptor written to.
    package let descriptor: Int32
    /// What messages call it: "standard output".
    package let name: String

    /// The stream that writes to `descriptor`, which messages call `name`.
    package init(descriptor: Int32, name: String) {
        self.descriptor = descriptor
        self.name = name
    }

    /// Writes `text` as it is; returns the `errno` of the write that failed, `nil` when everything was written.
    @discardableResult
    package func write(_ text: String) -> Int32? {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBytes { buffer -> Int32? in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(self.descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return written < 0 ? errno : EIO  // nothing written and no error: never retried for ever
                }
            }
            return nil
        }
    }

    /// Writes `text` and a newline, as `print` would, in one write. Throws a failure (exit status 1) when it cannot
    /// be written, e.g. to a full disk or a closed descriptor: a result a script redirects to a file must not be cut
    /// short without a word.
    package func writeLine(_ text: String) throws(CLIFailure) {
        if let code = self.write(text + "\n") {
            throw CLIFailure(.failure, "cannot write to \(self.name): \(SystemErrorText.describe(code))")
        }
    }
}

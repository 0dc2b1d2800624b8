import Glibc

/// Standard output or standard error, written with `write(2)`: whole, retrying after signals and short writes,
/// and unbuffered, so that what is written is in the pipe at once (a `watch` event as it happens) and the two
/// streams keep their order.
///
/// settingsctl prints through this rather than `print`, whose variadic `Any` arguments and output stream cost a
/// short-lived process their runtime set-up on every run.
package struct StandardStream: Sendable {
    /// Standard output: the command's result.
    package static let output = StandardStream(descriptor: 1)
    /// Standard error: messages for people that are not the command's result.
    package static let error = StandardStream(descriptor: 2)

    /// The file descriptor written to.
    package let descriptor: Int32

    /// Writes `text` as it is.
    package func write(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(self.descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }

    /// Writes `text` and a newline, as `print` would, in one write.
    package func writeLine(_ text: String) {
        self.write(text + "\n")
    }
}

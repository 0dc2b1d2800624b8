import Glibc

/// Writes to standard error with `write(2)`, whole, retrying after signals and short writes.
///
/// Standard output goes through `print`; messages for people that are not the command's result go here.
package enum StandardError {
    /// Writes `text` as it is.
    package static func write(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(2, buffer.baseAddress! + offset, buffer.count - offset)
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
}

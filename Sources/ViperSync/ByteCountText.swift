/// A size limit in words for messages: `64 MiB`, `64 KiB`, `1000 bytes`.
enum ByteCountText {
    /// `bytes` in MiB or KiB when it is a whole number of them, else in bytes.
    static func describe(_ bytes: Int) -> String {
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return bytes == 1 ? "1 byte" : "\(bytes) bytes"
    }
}

import ExtrasBase64

/// Standard base64 (RFC 4648, with padding), as the etcd JSON gateway encodes keys and values.
///
/// A thin wrapper over swift-extras-base64, whose decoder is strict: a length that is not a multiple of four,
/// misplaced padding or a character outside the alphabet is not base64.
enum EtcdBase64 {
    /// Encodes `bytes`.
    static func encode(_ bytes: some Collection<UInt8>) -> String {
        Base64.encodeToString(bytes: bytes)
    }

    /// Decodes `text`, or returns `nil` when it is not base64.
    static func decode(_ text: String) -> [UInt8]? {
        try? Base64.decode(string: text)
    }
}

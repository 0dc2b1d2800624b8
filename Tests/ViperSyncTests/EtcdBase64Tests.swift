import Testing

@testable import ViperSync

@Suite("etcd base64")
struct EtcdBase64Tests {
    @Test(
        "rejects text that is not padded base64",
        arguments: ["QQ", "A=", "A", "QQ=", "Q===", "=QQ=", "QQ==QQ==", "Zm9v YmFy", "Zm9v\nYmFy", "Zm9-", "Zm9_", "é"]
    )
    func rejectsInvalid(text: String) {
        #expect(EtcdBase64.decode(text) == nil)
    }

    @Test(
        "decodes valid values",
        arguments: [
            ("", ""), ("QQ==", "A"), ("Zm8=", "fo"), ("Zm9v", "foo"), ("Zm9vYmFy", "foobar"),
            ("dmlwZXIvbmV0L3JlY29tbWVuZGVkL3Byb3h5Lm1vZGU=", "viper/net/recommended/proxy.mode"),
        ]
    )
    func decodesValid(text: String, decoded: String) {
        #expect(EtcdBase64.decode(text) == Array(decoded.utf8))
    }

    @Test("every byte value round-trips")
    func allBytes() {
        let bytes = (0...255).map { UInt8($0) }
        for length in 0...bytes.count {
            #expect(EtcdBase64.decode(EtcdBase64.encode(bytes.prefix(length))) == Array(bytes.prefix(length)))
        }
        #expect(EtcdBase64.encode([0xFB, 0xFF]) == "+/8=")
    }
}

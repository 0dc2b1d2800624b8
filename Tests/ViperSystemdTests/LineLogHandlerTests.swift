import Logging
import Testing

@testable import ViperSystemd

@Suite("Log lines on standard error")
struct LineLogHandlerTests {
    @Test("control and reordering characters are written escaped; other text, accents included, as it is")
    func escapes() {
        #expect(LineLogHandler.escaped("r\u{1b}[2J\nFAKE LOG LINE\r\t") == #"r\u{1b}[2J\nFAKE LOG LINE\r\t"#)
        #expect(LineLogHandler.escaped("a\u{202E}b\u{85}c\u{2028}") == #"a\u{202e}b\u{85}c\u{2028}"#)
        #expect(!LineLogHandler.needsEscape("café ünïcode 🙂 \"quoted\" back\\slash"))
    }

    @Test("metadata values are escaped wherever they are: call, handler, nested")
    func escapesMetadata() {
        var handler = LineLogHandler(label: "test")
        handler[metadataKey: "module"] = "net\nwork"
        handler.metadata["other"] = .array(["x\u{1b}", .dictionary(["k": "v\n"])])
        #expect(handler[metadataKey: "module"] == "net\\nwork")
        #expect(handler.metadata["other"] == .array(["x\\u{1b}", .dictionary(["k": "v\\n"])]))
        #expect(LineLogHandler.oneLine(.stringConvertible(42)) == .stringConvertible(42))
        #expect(LineLogHandler.oneLine("revision r\u{0}") == "revision r\\u{0}")
    }
}

import SettingsAPI
import Testing

@testable import ViperIPC

@Suite("The encoded replies of Get, reused while nothing changed")
struct ValueReplyCacheTests {
    private func value(_ key: String, _ port: Int64, revision: Int64 = 1) -> ValueViewModel {
        ValueViewModel(
            item: ItemViewModel(
                key: key,
                id: "port",
                title: "Port",
                summary: "",
                type: "int",
                value: .int(port),
                display: "\(port)",
                layer: .local,
                modified: true,
                locked: false,
                defaultValue: 3128,
                defaultDisplay: "3128",
                constraint: nil
            ),
            revision: revision
        )
    }

    @Test("an equal ViewModel gets the cached text without encoding; any difference encodes again")
    func reuseAndInvalidate() {
        let cache = ValueReplyCache()
        var encodings = 0
        func text(_ viewModel: ValueViewModel) -> [UInt8] {
            cache.text(for: viewModel) {
                encodings += 1
                return Array("\(viewModel.item.value.serialized())@\(viewModel.revision)".utf8)
            }
        }
        #expect(text(self.value("network.proxy.port", 1)) == Array("1@1".utf8))
        #expect(text(self.value("network.proxy.port", 1)) == Array("1@1".utf8))
        #expect(encodings == 1)
        #expect(text(self.value("network.proxy.port", 2, revision: 2)) == Array("2@2".utf8))
        #expect(text(self.value("network.proxy.port", 2, revision: 3)) == Array("2@3".utf8), "revision alone")
        #expect(encodings == 3)
        var other = self.value("network.proxy.port", 2, revision: 3)
        other.item.layer = .mandatory
        _ = text(other)
        #expect(encodings == 4, "a different layer with the same value is another reply")
    }

    @Test("past its capacity the cache starts afresh instead of growing")
    func bounded() {
        let cache = ValueReplyCache(capacity: 2)
        var encodings = 0
        for key in ["a.b", "c.d", "e.f", "a.b"] {
            _ = cache.text(for: self.value(key, 1)) {
                encodings += 1
                return []
            }
        }
        // a.b and c.d fill it; e.f clears it; a.b is encoded again.
        #expect(encodings == 4)
        _ = cache.text(for: self.value("e.f", 1)) {
            encodings += 1
            return []
        }
        #expect(encodings == 4, "e.f was kept after the clear")
    }
}

import SettingsAPI
import Testing

@testable import ViperIPC

@Suite("Items written through their key's text template")
struct ItemTextCacheTests {
    private func item(_ key: String, _ port: Int64, title: String = "Port") -> ItemViewModel {
        ItemViewModel(
            key: key,
            id: "port",
            title: title,
            summary: "TCP port",
            type: "int",
            value: .int(port),
            display: "\(port)",
            layer: .local,
            modified: true,
            locked: false,
            defaultValue: 3128,
            defaultDisplay: "3128",
            constraint: "1..65535",
            limits: LimitsViewModel(minimum: 1, maximum: 65535)
        )
    }

    private func written(_ item: ItemViewModel, by cache: ItemTextCache) -> String {
        var out: [UInt8] = []
        cache.write(item, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private func direct(_ item: ItemViewModel) -> String {
        var out: [UInt8] = []
        item.writeJSONText(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    @Test("every value of a key, and a schema reloaded with a new title, is written as the item itself writes it")
    func sameBytes() {
        let cache = ItemTextCache()
        for port: Int64 in [1, 80, 8080, 80] {
            let item = self.item("network.proxy.port", port)
            #expect(self.written(item, by: cache) == self.direct(item))
        }
        #expect(cache.count == 1)
        let renamed = self.item("network.proxy.port", 80, title: "Proxy port")
        #expect(self.written(renamed, by: cache) == self.direct(renamed))
        #expect(self.written(renamed, by: cache).contains("\"title\":\"Proxy port\""))
        #expect(cache.count == 1)
    }

    @Test("past its capacity the cache starts afresh instead of growing")
    func bounded() {
        let cache = ItemTextCache(capacity: 2)
        for key in ["a.b", "c.d", "e.f", "g.h"] {
            let item = self.item(key, 1)
            #expect(self.written(item, by: cache) == self.direct(item))
        }
        #expect(cache.count == 2)
    }
}

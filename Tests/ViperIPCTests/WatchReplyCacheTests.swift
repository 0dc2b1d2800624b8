import SettingsAPI
import Testing

@testable import ViperIPC

@Suite("The encoded replies of Watch, shared by the watchers of one change")
struct WatchReplyCacheTests {
    private func change(_ index: Int, size: Int) -> WatchEventViewModel {
        var event = WatchEventViewModel(event: .change, cursor: "locale:\(index)")
        event.key = "locale.language.fallbacks"
        event.value = .string(String(repeating: "x", count: size))
        event.revision = Int64(index)
        return event
    }

    @Test("an event is encoded once and its frame shared; the frame is the reply with continues")
    func sharedFrame() throws {
        let cache = WatchReplyCache()
        let first = try cache.frame(for: self.change(1, size: 10))
        let again = try cache.frame(for: self.change(1, size: 10))
        #expect(first == again)
        #expect(cache.kept.events == 1)
        let text = String(decoding: first.readableBytesView, as: UTF8.self)
        #expect(text.hasSuffix("\0") && text.contains(#""continues":true"#) && text.contains(#""cursor":"locale:1""#))
    }

    @Test("large events do not stay by the hundred: the frames kept stay within the byte budget, the newest kept")
    func boundedByBytes() throws {
        let cache = WatchReplyCache(capacity: 256, byteBudget: 1 << 20)
        for index in 1...300 {
            _ = try cache.frame(for: self.change(index, size: 60_000))
            #expect(cache.kept.bytes <= 1 << 20, "after event \(index): \(cache.kept)")
        }
        #expect(cache.kept.events >= 1 && cache.kept.events < 20)
        // One event larger than the budget is still kept for the watchers still to be told of it.
        let huge = self.change(400, size: 2 << 20)
        _ = try cache.frame(for: huge)
        #expect(cache.kept.events == 1)
        #expect(cache.kept.bytes > 2 << 20)
    }

    @Test("small events are bounded by count")
    func boundedByCount() throws {
        let cache = WatchReplyCache(capacity: 8, byteBudget: 1 << 20)
        for index in 1...20 { _ = try cache.frame(for: self.change(index, size: 10)) }
        #expect(cache.kept.events <= 8)
    }
}

import SettingsAPI
import SettingsCLICore
import Testing

@Suite("watch: WatchEventRenderer")
struct WatchEventRendererTests {
    /// A change of `network.proxy.autoconfig-url` from `old` to `new` (`nil`: no value, a key added or removed).
    static func change(from old: (JSONValue, String)?, to new: (JSONValue, String)?) -> String? {
        var event = WatchEventViewModel(event: .change, cursor: "network:5")
        event.key = "network.proxy.autoconfig-url"
        (event.old, event.oldDisplay) = (old?.0, old?.1)
        (event.value, event.display) = (new?.0, new?.1)
        event.layer = new == nil ? nil : .local
        event.cause = "schema"
        event.revision = 5
        return WatchEventRenderer.render(event, style: .plain)
    }

    @Test("no old or new value is (none); a value that reads (none) is shown as its JSON")
    func absentValues() {
        let key = "network.proxy.autoconfig-url"
        #expect(Self.change(from: nil, to: ("x", "x"))?.hasPrefix("\(key): (none) -> x (local;") == true)
        #expect(Self.change(from: ("x", "x"), to: nil)?.hasPrefix("\(key): x -> (none) (removed;") == true)
        #expect(
            Self.change(from: ("(none)", "(none)"), to: nil)?.hasPrefix(#"\#(key): "(none)" -> (none) (removed;"#)
                == true
        )
        #expect(
            Self.change(from: nil, to: (["(none)"], "(none)"))?.hasPrefix(#"\#(key): (none) -> ["(none)"] (local;"#)
                == true
        )
    }

    @Test("a change whose two values read the same (a schema change of the key's type) shows both as JSON")
    func sameDisplayDifferentValues() {
        let key = "network.proxy.autoconfig-url"
        #expect(
            Self.change(from: (true, "true"), to: ("true", "true"))?.hasPrefix(#"\#(key): true -> "true" (local;"#)
                == true
        )
        #expect(Self.change(from: (1, "1"), to: (1.0, "1"))?.hasPrefix("\(key): 1 -> 1.0 (local;") == true)
        #expect(Self.change(from: ("a", "a"), to: ("b", "b"))?.hasPrefix("\(key): a -> b (local;") == true)
    }
}

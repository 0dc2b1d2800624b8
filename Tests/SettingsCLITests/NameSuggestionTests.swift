import SettingsAPI
import SettingsCLICore
import Testing

@Suite("NameSuggestion")
struct NameSuggestionTests {
    static let keys = [
        "network.proxy.port", "network.proxy.mode", "network.dns.servers", "display.output.scale", "power.dns.port",
    ]

    @Test("a key without its module is the key of the module with that section and item, the first by name")
    func keyWithoutItsModule() {
        #expect(NameSuggestion.key(missingItsModule: "proxy.port", in: Self.keys) == "network.proxy.port")
        #expect(NameSuggestion.key(missingItsModule: "output.scale", in: Self.keys) == "display.output.scale")
        #expect(NameSuggestion.key(missingItsModule: "dns.servers", in: Self.keys) == "network.dns.servers")
        #expect(NameSuggestion.key(missingItsModule: "dns.port", in: Self.keys) == "power.dns.port")
    }

    @Test("else the closest key so, by edit distance; nothing when none is close")
    func closestKeyWithoutItsModule() {
        #expect(NameSuggestion.key(missingItsModule: "proxy.prot", in: Self.keys) == "network.proxy.port")
        #expect(NameSuggestion.key(missingItsModule: "Proxy.Mode", in: Self.keys) == "network.proxy.mode")
        #expect(NameSuggestion.key(missingItsModule: "zzz.qqq", in: Self.keys) == nil)
        #expect(NameSuggestion.key(missingItsModule: "proxy.port", in: []) == nil)
    }

    @Test("a name shortened from the start of one candidate only is that one; a typo comes first, one letter is none")
    func shortenedName() {
        let modules = ["display", "locale", "network", "power", "updates"]
        #expect(ClosestName.closest(to: "netw", in: modules) == "network")
        #expect(ClosestName.closest(to: "Po", in: modules) == "power")
        #expect(ClosestName.closest(to: "n", in: modules) == nil, "one letter is too little to go on")
        #expect(ClosestName.closest(to: "network.proxy.p", in: Self.keys) == "network.proxy.port")
        #expect(ClosestName.closest(to: "network.", in: Self.keys) == nil, "three keys begin so")
        #expect(
            ClosestName.closest(to: "dispay", in: ["dispayer", "display"]) == "display",
            "the typo, not the prefix"
        )
        #expect(ClosestName.closest(to: "tst3", in: ["tst", "tst2"]) == nil, "two as close: no guess")
        #expect(ClosestName.closest(to: "a.y", in: ["a.x", "b.y"]) == nil, "two as close: no guess")
    }

    @Test("an item given alone is the key with that item, the first by name, letter case ignored")
    func keyOfItem() {
        #expect(NameSuggestion.key(ofItem: "port", in: Self.keys) == "network.proxy.port")
        #expect(NameSuggestion.key(ofItem: "Servers", in: Self.keys) == "network.dns.servers")
        #expect(NameSuggestion.key(ofItem: "proxy", in: Self.keys) == nil, "a section is not an item")
    }
}

import SettingsAPI
import Testing

/// The replies written directly as text (`writeJSONText`) must be the bytes the `Encodable` path writes: the IDL
/// tests check the wire through either.
@Suite("ViewModels written as text")
struct ViewModelTextTests {
    static let items: [ItemViewModel] = [
        ItemViewModel(
            key: "network.proxy.port",
            id: "port",
            title: "Port",
            summary: "TCP port of the proxy",
            type: "int",
            value: 8080,
            display: "8080",
            layer: .local,
            modified: true,
            locked: false,
            defaultValue: 3128,
            defaultDisplay: "3128",
            constraint: "1..65535",
            limits: LimitsViewModel(minimum: 1, maximum: 65535)
        ),
        ItemViewModel(
            key: "network.proxy.enabled",
            id: "enabled",
            title: "Use a proxy",
            summary: "",
            type: "bool",
            value: false,
            display: "false",
            layer: .default,
            modified: false,
            locked: true,
            defaultValue: false,
            defaultDisplay: "false",
            constraint: nil,
            limits: nil
        ),
        ItemViewModel(
            key: "updates.channel",
            id: "channel",
            title: "Quote \" and \\ and\ttab\nnewline \u{1}",
            summary: "é😀",
            type: "string",
            value: "beta\"",
            display: "beta\"",
            layer: .mandatory,
            modified: true,
            locked: true,
            defaultValue: "stable",
            defaultDisplay: "stable",
            constraint: "one of stable, beta",
            limits: LimitsViewModel(choices: ["stable", "beta\""], pattern: "^[a-z]+$", maxLength: 12, maxSize: 4096)
        ),
        ItemViewModel(
            key: "mail.aliases",
            id: "aliases",
            title: "Aliases",
            summary: "Other addresses",
            type: "strings",
            value: ["a@example.org", "b@example.org"],
            display: "a@example.org, b@example.org",
            layer: .recommended,
            modified: true,
            locked: false,
            defaultValue: [],
            defaultDisplay: "",
            constraint: "at most 8 strings",
            limits: LimitsViewModel(maxLength: 254, maxItems: 8, maxSize: 65536)
        ),
        ItemViewModel(
            key: "display.scale",
            id: "scale",
            title: "Scale",
            summary: "Scale factor",
            type: "double",
            value: 1.25,
            display: "1.25",
            layer: .local,
            modified: true,
            locked: false,
            defaultValue: 1.0,
            defaultDisplay: "1.0",
            constraint: "0.5..4.0",
            limits: LimitsViewModel(minimum: 0.5, maximum: 4.0)
        ),
    ]

    static func text(_ write: (inout [UInt8]) -> Void) -> String {
        var out: [UInt8] = []
        write(&out)
        return String(decoding: out, as: UTF8.self)
    }

    static func encoded(_ value: some Encodable) throws -> String {
        String(decoding: try JSONValueEncoder().encodeText(value).bytes, as: UTF8.self)
    }

    @Test("an item is written as the encoder writes it", arguments: Self.items)
    func item(_ item: ItemViewModel) throws {
        #expect(Self.text(item.writeJSONText(into:)) == (try Self.encoded(item)))
    }

    @Test("a Get reply is written as the encoder writes it", arguments: Self.items)
    func value(_ item: ItemViewModel) throws {
        let reply = ValueViewModel(item: item, revision: 9_223_372_036_854_775_807)
        #expect(Self.text(reply.writeJSONText(into:)) == (try Self.encoded(reply)))
    }

    @Test("a Set reply is written as the encoder writes it", arguments: [false, true])
    func set(_ changed: Bool) throws {
        let reply = SetResultViewModel(item: Self.items[0], previous: Self.items[2], changed: changed, revision: 42)
        let text = Self.text(reply.writeJSONText(into:))
        #expect(text == (try Self.encoded(reply)))
        #expect(try JSONValue(parsing: text)["previous"]?["key"] == "updates.channel")
    }

    @Test("an item written through its key's template is the encoder's bytes", arguments: Self.items)
    func template(_ item: ItemViewModel) throws {
        let template = ItemViewModel.TextTemplate(item)
        #expect(template.matches(item))
        #expect(Self.text { template.write(item, into: &$0) } == (try Self.encoded(item)))
        // The members that come from the value are the item's own, not the template's.
        var changed = item
        changed.value = "other \u{202e}"
        changed.display = "other"
        changed.layer = .mandatory
        changed.locked.toggle()
        changed.modified.toggle()
        #expect(template.matches(changed))
        #expect(Self.text { template.write(changed, into: &$0) } == (try Self.encoded(changed)))
        let reply = SetResultViewModel(item: changed, previous: item, changed: true, revision: 7)
        let written = Self.text { reply.writeJSONText(into: &$0) { template.write($0, into: &$1) } }
        #expect(written == (try Self.encoded(reply)))
    }

    @Test("a template does not match an item whose schema members differ")
    func templateMismatch() {
        let item = Self.items[2]
        let template = ItemViewModel.TextTemplate(item)
        let edits: [(inout ItemViewModel) -> Void] = [
            { $0.key = "updates.other" }, { $0.id = "other" }, { $0.title = "Other" }, { $0.summary = "" },
            { $0.type = "strings" }, { $0.defaultValue = "beta" }, { $0.defaultDisplay = "beta" },
            { $0.constraint = nil }, { $0.limits = nil }, { $0.limits?.maxLength = 13 },
        ]
        for edit in edits {
            var other = item
            edit(&other)
            #expect(!template.matches(other), "\(other)")
        }
    }

    @Test("text is appended after what is already there")
    func appends() throws {
        var out = Array("prefix:".utf8)
        Self.items[1].writeJSONText(into: &out)
        #expect(String(decoding: out, as: UTF8.self) == "prefix:" + (try Self.encoded(Self.items[1])))
    }
}

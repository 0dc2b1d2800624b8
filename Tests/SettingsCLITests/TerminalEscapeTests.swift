import SettingsAPI
import SettingsCLICore
import Testing

/// Text from a schema, a value or the daemon is shown with its control characters escaped in every view, so that
/// it cannot retitle the terminal, clear the screen or move the cursor.
@Suite("Every view escapes the control characters of schema and daemon text")
struct TerminalEscapeTests {
    /// A window-title sequence, a clear-screen sequence, a carriage return and an 8-bit CSI, with a visible word.
    static func hostile(_ word: String) -> String {
        "\(word)\u{1B}]0;pwned\u{07}\u{1B}[2J\r\u{9B}31m"
    }

    /// A terminal with colour: the style's own escape sequences are the only ones expected.
    static let terminal = TextStyle(isEnabled: true, columns: 400)

    /// The control characters in `text` other than its line breaks, once the style's own SGR sequences are removed.
    static func controls(in text: String) -> [Unicode.Scalar] {
        var text = text
        for code in ["1", "2", "31", "32", "33", "0"] { text = text.replacing("\u{1B}[\(code)m", with: "") }
        return text.unicodeScalars.filter { $0 != "\n" && QuotedText.escaped($0) != nil }
    }

    /// Checks that `render` shows `word` (so the hostile text is there, escaped) and writes no control character,
    /// on a terminal and in plain style.
    static func expectEscaped(_ word: String, _ render: (TextStyle) -> String) {
        for style in [Self.terminal, .plain] {
            let text = render(style)
            #expect(text.contains(word + "\\u{1b}]0;pwned\\u{7}\\u{1b}[2J\\r\\u{9b}31m"), "\(text.debugDescription)")
            #expect(Self.controls(in: text).isEmpty, "\(text.debugDescription)")
        }
    }

    static func item(_ key: String = "odd.s.c", title: String = "title", display: String = "v") -> ItemViewModel {
        ItemViewModel(
            key: key,
            id: "c",
            title: title,
            summary: Self.hostile("summary"),
            type: "string",
            value: .string(display),
            display: display,
            layer: .local,
            modified: true,
            locked: false,
            defaultValue: "v",
            defaultDisplay: "v",
            constraint: "one of \(Self.hostile("choice")), b"
        )
    }

    @Test("show: the module's title and name, as the section and item titles already were")
    func show() {
        let model = ModuleViewModel(
            module: Self.hostile("module"),
            title: Self.hostile("moduletitle"),
            description: Self.hostile("description"),
            revision: 1,
            sections: [
                SectionViewModel(
                    id: "s",
                    title: Self.hostile("section"),
                    items: [Self.item(title: Self.hostile("itemtitle"), display: Self.hostile("value"))]
                )
            ]
        )
        for word in ["module", "moduletitle", "description", "section", "itemtitle", "value"] {
            Self.expectEscaped(word) { ModuleRenderer.render(model, style: $0) }
        }
    }

    @Test("explain: the item's title, its choices, values, sources, the remote revision and rejected values")
    func explain() {
        let display = Self.hostile("value")
        let model = ExplainViewModel(
            item: Self.item(Self.hostile("key"), title: Self.hostile("itemtitle"), display: display),
            layers: [
                LayerValueViewModel(layer: .default, present: true, value: "v", display: "v", source: "schema"),
                LayerValueViewModel(
                    layer: .local,
                    present: true,
                    value: .string(display),
                    display: display,
                    source: Self.hostile("source")
                ),
            ],
            winner: .local,
            revision: 1,
            remoteRevision: Self.hostile("etag"),
            rejected: [Self.hostile("rejected")]
        )
        for word in ["key", "itemtitle", "summary", "choice", "value", "source", "etag", "rejected"] {
            Self.expectEscaped(word) { ExplainRenderer.render(model, style: $0) }
        }
    }

    @Test("modules: the name and the title")
    func modules() {
        let model = ModuleListViewModel(modules: [
            ModuleSummaryViewModel(
                module: Self.hostile("module"),
                title: Self.hostile("title"),
                description: "",
                keys: 1,
                modified: 0,
                revision: 1
            )
        ])
        for word in ["module", "title"] {
            Self.expectEscaped(word) { ModuleListRenderer.render(model, style: $0) }
        }
    }

    @Test("get: on a terminal escaped but for line breaks and tabs; through a pipe the value as it is")
    func get() {
        let value = "line\n\tnext" + Self.hostile("value")
        let model = ValueViewModel(item: Self.item(display: value), revision: 1)
        let shown = ValueRenderer.render(model, style: Self.terminal)
        #expect(shown == "line\n\tnextvalue\\u{1b}]0;pwned\\u{7}\\u{1b}[2J\\r\\u{9b}31m")
        #expect(Self.controls(in: shown) == ["\t"])
        #expect(ValueRenderer.render(model) == value)
    }

    @Test("get as settingsctl runs it (the reply read without the decoder): escaped on a terminal only")
    func getCommand() throws {
        let value = Self.hostile("value")
        let reply = JSONValue.object([
            "parameters": .object(["item": .object(["type": "string", "value": .string(value), "display": "x"])])
        ])
        func output(_ style: TextStyle) throws -> String {
            let server = FakeVarlinkServer(reply: reply.serialized())
            defer { _ = server.finish() }
            let client = VarlinkClient(location: .init(path: server.path, origin: .option))
            return try CommandAction.get(key: "odd.s.c").output(using: client, style: style, json: false)
        }
        #expect(try output(TextStyle(isEnabled: false, columns: 80)) == TableFormatter.printable(value))
        #expect(try output(.plain) == value)
    }

    @Test("set and reset: keys and values")
    func setAndReset() {
        let item = Self.item(Self.hostile("key"), display: Self.hostile("value"))
        let previous = Self.item(display: Self.hostile("previous"))
        for changed in [true, false] {
            let set = SetResultViewModel(item: item, previous: previous, changed: changed, revision: 2)
            for word in ["key", "value"] + (changed ? ["previous"] : []) {
                Self.expectEscaped(word) { SetResultRenderer.render(set, style: $0) }
            }
            let reset = ResetResultViewModel(items: [item], changed: changed, revision: 2)
            for word in ["key", "value"] {
                Self.expectEscaped(word) { ResetResultRenderer.render(reset, target: item.key, style: $0) }
            }
        }
    }

    @Test("set: bidirectional controls and a byte order mark are shown escaped; get through a pipe keeps them")
    func bidirectionalControls() {
        let invisible: [Unicode.Scalar] = [
            "\u{200E}", "\u{200F}", "\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}", "\u{202E}", "\u{2066}",
            "\u{2067}", "\u{2068}", "\u{2069}", "\u{FEFF}",
        ]
        for scalar in invisible {
            let value = "a\(scalar)b"
            let escaped = "a\\u{\(String(scalar.value, radix: 16))}b"
            let set = SetResultViewModel(
                item: Self.item(display: value),
                previous: Self.item(display: "old\u{202E}"),
                changed: true,
                revision: 2
            )
            for style in [Self.terminal, .plain] {
                let line = SetResultRenderer.render(set, style: style)
                #expect(!line.unicodeScalars.contains(scalar), "\(line.debugDescription)")
                #expect(line.contains(escaped) && line.contains("old\\u{202e} -> "), "\(line.debugDescription)")
            }
            let get = ValueViewModel(item: Self.item(display: value), revision: 1)
            #expect(ValueRenderer.render(get, style: Self.terminal) == escaped)
            #expect(ValueRenderer.render(get) == value)
        }
        // Other text beyond ASCII is shown as it is.
        #expect(TableFormatter.printable("Zürich → 東京 \u{200B}") == "Zürich → 東京 \u{200B}")
    }

    @Test("status and sync: the version, the source, its state and revision, changed keys and rejected values")
    func status() {
        let sync = SyncStatusViewModel(
            state: Self.hostile("state"),
            source: Self.hostile("source"),
            revision: Self.hostile("etag"),
            lastError: Self.hostile("error"),
            rejected: [Self.hostile("rejected")]
        )
        let status = StatusViewModel(version: Self.hostile("version"), modules: 1, keys: 1, sync: sync, now: 0)
        for word in ["version", "source", "state", "etag", "error", "rejected"] {
            Self.expectEscaped(word) { StatusRenderer.render(status, style: $0) }
        }
        let result = SyncResultViewModel(sync: sync, changedKeys: [Self.hostile("changed")], now: 0)
        Self.expectEscaped("changed") { StatusRenderer.render(result, style: $0) }
    }

    @Test("diff and load: modules, keys, values and the reasons of problems")
    func load() {
        let change = LoadChangeViewModel(
            key: Self.hostile("key"),
            old: "a",
            oldDisplay: Self.hostile("old"),
            oldLayer: .default,
            value: "b",
            display: Self.hostile("new"),
            layer: .local
        )
        let module = ModuleLoadViewModel(module: Self.hostile("module"), revision: 1, changed: true, changes: [change])
        let problem = LoadProblemViewModel(key: Self.hostile("problem"), problem: .invalidValue, reason: "r")
        let reason = LoadProblemViewModel(key: "k", problem: .invalidValue, reason: Self.hostile("reason"))
        let model = LoadResultViewModel(modules: [module], problems: [problem, reason], applied: false)
        for word in ["module", "key", "old", "new", "problem", "reason"] {
            Self.expectEscaped(word) { LoadResultRenderer.render(model, style: $0) }
        }
        for word in ["module", "key", "old", "new"] {
            Self.expectEscaped(word) { LoadResultRenderer.render(differences: module, style: $0) }
        }
    }

    @Test("watch: keys, values, cursors, remote revisions and resync reasons")
    func watch() {
        var current = WatchEventViewModel(event: .current, cursor: "c")
        current.key = Self.hostile("key")
        current.display = Self.hostile("value")
        let ready = WatchEventViewModel(event: .ready, cursor: Self.hostile("cursor"))
        var change = WatchEventViewModel(event: .change, cursor: Self.hostile("cursor"))
        change.key = Self.hostile("key")
        change.display = Self.hostile("new")
        change.oldDisplay = Self.hostile("old")
        change.cause = "remote"
        change.remoteRevision = Self.hostile("etag")
        var resync = WatchEventViewModel(event: .resync, cursor: "c")
        resync.reason = Self.hostile("reason")
        let cases: [(WatchEventViewModel, [String])] = [
            (current, ["key", "value"]), (ready, ["cursor"]), (change, ["key", "new", "old", "etag", "cursor"]),
            (resync, ["reason"]),
        ]
        for (event, words) in cases {
            for word in words {
                Self.expectEscaped(word) { WatchEventRenderer.render(event, style: $0) ?? "" }
            }
        }
    }
}

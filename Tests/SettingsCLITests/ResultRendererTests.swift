import SettingsAPI
import SettingsCLI
import SettingsCLICore
import Testing

@Suite("get, set, reset, modules: renderers")
struct ResultRendererTests {
    @Test("get prints only the display value, as the daemon wrote it")
    func getPrintsOnlyTheValue() {
        #expect(ValueRenderer.render(ValueViewModel(item: Fixtures.port, revision: 7)) == "8080")
        var channels = Fixtures.servers
        channels.display = "stable, beta"
        #expect(ValueRenderer.render(ValueViewModel(item: channels, revision: 1)) == "stable, beta")
    }

    @Test("set prints the value before and after, or that it is unchanged")
    func set() {
        var previous = Fixtures.port
        previous.display = "3128"
        let changed = SetResultViewModel(item: Fixtures.port, previous: previous, changed: true, revision: 8)
        #expect(SetResultRenderer.render(changed) == "network.proxy.port: 3128 -> 8080")
        let same = SetResultViewModel(item: Fixtures.port, previous: Fixtures.port, changed: false, revision: 7)
        #expect(SetResultRenderer.render(same) == "network.proxy.port: unchanged (8080)")
        // The value in effect set on this host: the layers say what changed.
        var fromDefault = Fixtures.port
        fromDefault.layer = .default
        let pinned = SetResultViewModel(item: Fixtures.port, previous: fromDefault, changed: true, revision: 8)
        #expect(SetResultRenderer.render(pinned) == "network.proxy.port: 8080 (default) -> 8080 (local)")
    }

    @Test("reset prints each key with the value that applies again, or that nothing was reset")
    func reset() {
        var port = Fixtures.port
        port.display = "3128"
        port.layer = .default
        let changed = ResetResultViewModel(items: [port], changed: true, revision: 9)
        #expect(
            ResetResultRenderer.render(changed, target: "network.proxy.port")
                == "network.proxy.port: reset to 3128 (default)"
        )
        let unchanged = ResetResultViewModel(items: [port], changed: false, revision: 9)
        #expect(
            ResetResultRenderer.render(unchanged, target: "network.proxy.port")
                == "network.proxy.port: unchanged, no local value (3128)"
        )
        // A key the schema no longer has: no item comes back, its stored value is gone.
        let removedKey = ResetResultViewModel(items: [], changed: true, revision: 10)
        #expect(
            ResetResultRenderer.render(removedKey, target: "network.proxy.gone")
                == "network.proxy.gone: stored value removed (the schema has no such key now)"
        )
        let module = ResetResultViewModel(items: [Fixtures.host, port], changed: true, revision: 9)
        #expect(
            ResetResultRenderer.render(module, target: "network").split(separator: "\n") == [
                "network: local values removed; the values now are:",
                "  network.proxy.host        (default)",
                "  network.proxy.port  3128  (default)",
            ]
        )
        let untouched = ResetResultViewModel(items: [Fixtures.host, port], changed: false, revision: 9)
        #expect(
            ResetResultRenderer.render(untouched, target: "network") == "network: nothing to reset, no local values"
        )
    }

    @Test("modules prints a table with numbers aligned right")
    func modules() {
        let model = ModuleListViewModel(modules: [
            ModuleSummaryViewModel(
                module: "network",
                title: "Network",
                description: "",
                keys: 9,
                modified: 2,
                revision: 41
            ),
            ModuleSummaryViewModel(
                module: "display",
                title: "Display",
                description: "",
                keys: 12,
                modified: 0,
                revision: 3
            ),
        ])
        #expect(
            ModuleListRenderer.render(model).split(separator: "\n") == [
                "NAME     TITLE    KEYS  MODIFIED  REVISION",
                "network  Network     9         2        41",
                "display  Display    12         0         3",
            ]
        )
        #expect(ModuleListRenderer.render(ModuleListViewModel(modules: [])) == "No modules.")
    }

    @Test("modules and reset on a terminal cut titles and values to fit its width")
    func fitTheTerminal() throws {
        let title = "Network, proxies, name resolution and time servers of this host"
        let model = ModuleListViewModel(modules: [
            ModuleSummaryViewModel(module: "network", title: title, description: "", keys: 9, modified: 2, revision: 41)
        ])
        let style = TextStyle(isEnabled: false, columns: 60)
        let lines = ModuleListRenderer.render(model, style: style).split(separator: "\n")
        for line in lines { #expect(TableFormatter.width(of: String(line)) <= 60, "\(line)") }
        #expect(lines[1].hasPrefix("network  Network, ") && lines[1].contains("…") && lines[1].hasSuffix("41"))
        #expect(ModuleListRenderer.render(model).contains(title))

        var host = Fixtures.host
        host.display = String(repeating: "h", count: 300)
        let reset = ResetResultViewModel(items: [host, Fixtures.port], changed: true, revision: 8)
        let text = ResetResultRenderer.render(reset, target: "network", style: style)
        for line in text.split(separator: "\n") { #expect(TableFormatter.width(of: String(line)) <= 60, "\(line)") }
        #expect(text.contains("hhh…  (default)"))
        #expect(ResetResultRenderer.render(reset, target: "network").contains(host.display + "  (default)"))
    }

    @Test("set, reset, load, diff and watch lines cut a long value to half a terminal's width; a pipe gets it whole")
    func longValuesOnATerminal() {
        let long = String(repeating: "w", count: 3000)
        let style = TextStyle(isEnabled: false, columns: 80)
        let cut = String(repeating: "w", count: 39) + "…"
        var big = Fixtures.host
        big.display = long
        var previous = big
        previous.display = long + "x"
        let set = SetResultViewModel(item: big, previous: previous, changed: true, revision: 8)
        #expect(SetResultRenderer.render(set, style: style) == "network.proxy.host: \(cut) -> \(cut)")
        #expect(SetResultRenderer.render(set).count == "network.proxy.host: ".count + 2 * 3000 + 5)
        let reset = ResetResultViewModel(items: [big], changed: true, revision: 9)
        #expect(ResetResultRenderer.render(reset, target: big.key, style: style).hasSuffix("reset to \(cut) (default)"))
        let change = LoadChangeViewModel(
            key: big.key,
            old: .string(long),
            oldDisplay: long,
            oldLayer: .default,
            value: .string(long + "x"),
            display: long + "x",
            layer: .local
        )
        let module = ModuleLoadViewModel(module: "network", revision: 3, changed: true, changes: [change])
        let diff = LoadResultRenderer.render(differences: module, style: style)
        #expect(diff.hasSuffix("  network.proxy.host: \(cut) -> \(cut) (local)"), "\(diff.suffix(200))")
        #expect(LoadResultRenderer.render(differences: module).contains(long + "x"))
        var event = WatchEventViewModel(event: .change, cursor: "5f3a9c01/network:5")
        event.key = big.key
        (event.old, event.oldDisplay, event.value, event.display) = (.string(long), long, .string(long), long + "x")
        event.layer = .local
        let line = WatchEventRenderer.render(event, style: style) ?? ""
        #expect(line.hasPrefix("network.proxy.host: \(cut) -> \(cut) (local") && line.count < 200, "\(line)")
        #expect(WatchEventRenderer.render(event, style: .plain)?.contains(long + "x") == true)
    }

    @Test("load of a file that names no module says so instead of printing an empty line")
    func loadOfNothing() {
        // A key with a blank at an end is shown as its JSON string: it would read as the key without it.
        let blank = LoadResultViewModel(
            modules: [],
            problems: [
                LoadProblemViewModel(key: "network.proxy.port ", problem: .noSuchKey, reason: "no such key"),
                LoadProblemViewModel(key: "", problem: .noSuchModule, reason: "no such module"),
                LoadProblemViewModel(key: "network.proxy.prot", problem: .noSuchKey, reason: "no such key"),
            ],
            applied: true
        )
        #expect(
            LoadResultRenderer.render(blank).split(separator: "\n").dropFirst() == [
                #"  "network.proxy.port ": no such key"#, #"  "": no such module"#, "  network.proxy.prot: no such key",
            ]
        )
        let nothing = LoadResultViewModel(modules: [], problems: [], applied: true)
        #expect(LoadResultRenderer.render(nothing) == "the file names no module: nothing to load")
        let one = LoadResultViewModel(
            modules: [ModuleLoadViewModel(module: "network", revision: 3, changed: false, changes: [])],
            problems: [],
            applied: true
        )
        #expect(LoadResultRenderer.render(one) == "network: no change (revision 3)")
    }
}

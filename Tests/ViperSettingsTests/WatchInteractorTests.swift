import Logging
import SettingsAPI
import Synchronization
import Testing
import ViperSettings

/// The Watch Interactor over the in-memory Repository and a real change feed: what a watcher receives.
@Suite("Watch Interactor: current values, changes, resume and resync")
struct WatchInteractorTests {
    let feed: ChangeFeed
    let repository: InMemorySettingsRepository
    let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    init() {
        self.feed = ChangeFeed(backlogLimit: 4)
        self.repository = InMemorySettingsRepository(feed: self.feed)
    }

    var settings: SettingsInteractor {
        SettingsInteractor(
            schema: Fixtures.network,
            repository: self.repository,
            accounts: FakeAccounts(),
            logger: self.logger
        )
    }

    var watcher: WatchInteractor { self.watcher(history: nil) }

    /// A watcher over the state directory's history `history`.
    func watcher(history: String?) -> WatchInteractor {
        WatchInteractor(
            repository: self.repository,
            feed: self.feed,
            schemas: { [Fixtures.network] },
            history: history,
            logger: self.logger
        )
    }

    /// Runs a watch and hands its events to `body` as a stream; the watch is cancelled when `body` returns.
    func watching(
        _ targets: [String],
        after cursor: WatchCursor? = nil,
        history: String? = nil,
        _ body: (inout AsyncStream<WatchEvent>.Iterator) async throws -> Void
    ) async throws {
        let (events, sink) = AsyncStream<WatchEvent>.makeStream()
        let watcher = self.watcher(history: history)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await watcher.watch(targets: targets, after: cursor) { sink.yield($0) }
                sink.finish()
            }
            var iterator = events.makeAsyncIterator()
            try await body(&iterator)
            group.cancelAll()
        }
    }

    /// The events up to and including `ready`.
    static func untilReady(_ iterator: inout AsyncStream<WatchEvent>.Iterator) async -> [WatchEvent] {
        var events: [WatchEvent] = []
        while let event = await iterator.next() {
            events.append(event)
            if case .ready = event { break }
        }
        return events
    }

    @Test("the current values of the watched keys come first, then ready, then each change with who made it")
    func currentThenChanges() async throws {
        _ = try await self.settings.set(path: "proxy.port", input: .text("8080"), caller: Fixtures.root)
        try await self.watching(["network.proxy.port", "network.dns.cache"]) { events in
            let start = await Self.untilReady(&events)
            #expect(start.count == 3)
            guard case .current(let port, let revision, _) = start[0], case .ready(let cursor) = start[2] else {
                Issue.record("unexpected start \(start)")
                return
            }
            #expect(port.key.description == "network.proxy.port" && port.value == .int(8080) && revision == 1)
            #expect(cursor.description == "network:1")
            // proxy.mode is not watched
            _ = try await self.settings.set(path: "proxy.mode", input: .text("auto"), caller: Fixtures.root)
            _ = try await self.settings.set(path: "proxy.port", input: .text("9090"), caller: Fixtures.alice)
            let next = await events.next()
            guard case .change(let module, let change, let changeRevision, let cause, let after) = next else {
                Issue.record("expected a change, got \(String(describing: next))")
                return
            }
            #expect(module == "network" && change.path == "proxy.port")
            #expect(change.old == .int(8080) && change.new == .int(9090) && change.layer == .local)
            #expect(changeRevision == 3 && cause == .client(uid: 1000, pid: 43))
            #expect(after.description == "network:3")
        }
    }

    @Test("resuming after a cursor sends exactly the changes that followed it, then ready")
    func resume() async throws {
        var cursors: [WatchCursor] = []
        try await self.watching(["network"]) { events in
            _ = await Self.untilReady(&events)
            for port in [1001, 1002, 1003] {
                _ = try await self.settings.set(path: "proxy.port", input: .text("\(port)"), caller: Fixtures.root)
                if case .change(_, _, _, _, let cursor) = await events.next() { cursors.append(cursor) }
            }
        }
        #expect(cursors.map(\.description) == ["network:1", "network:2", "network:3"])
        try await self.watching(["network"], after: cursors[0]) { events in
            let replay = await Self.untilReady(&events)
            let values = replay.compactMap { event -> SettingValue? in
                if case .change(_, let change, _, _, _) = event { return change.new }
                return nil
            }
            #expect(values == [.int(1002), .int(1003)])
            #expect(replay.count == 3)
        }
    }

    @Test("a reset of several keys is one revision; a cursor inside it resumes with the rest")
    func cursorInsideARevision() async throws {
        _ = try await self.settings.set(path: "proxy.port", input: .text("8080"), caller: Fixtures.root)
        _ = try await self.settings.set(path: "dns.cache", input: .text("false"), caller: Fixtures.root)
        var first: WatchCursor?
        try await self.watching(["network"]) { events in
            _ = await Self.untilReady(&events)
            _ = try await self.settings.reset(path: nil, caller: Fixtures.root)
            guard case .change(_, let change, let revision, _, let cursor) = await events.next() else { return }
            #expect(revision == 3 && change.path == "dns.cache")
            first = cursor
            guard case .change(_, let second, _, _, let last) = await events.next() else { return }
            #expect(second.path == "proxy.port" && last.description == "network:3")
        }
        let cursor = try #require(first)
        #expect(cursor.description == "network:3.0")
        try await self.watching(["network"], after: cursor) { events in
            let replay = await Self.untilReady(&events)
            guard case .change(_, let change, _, _, _) = replay.first else {
                Issue.record("expected the second change of the reset, got \(replay)")
                return
            }
            #expect(change.path == "proxy.port" && change.new == .int(3128) && replay.count == 2)
        }
    }

    @Test("a position the history shows was never given out (past a revision's last change) gets a resync")
    func resyncWhenPositionNeverExisted() async throws {
        _ = try await self.settings.set(path: "proxy.port", input: .text("8080"), caller: Fixtures.root)
        _ = try await self.settings.set(path: "dns.cache", input: .text("false"), caller: Fixtures.root)
        // Revision 3 changes two keys: 3.0 is a position inside it; 3.1 and 3.5 are not; revision 2 changed one.
        _ = try await self.settings.reset(path: nil, caller: Fixtures.root)
        let expected: [(String, WatchResyncReason)] = [
            ("network:3.1", .noSuchPosition(module: "network", revision: 3, index: 1, changes: 2)),
            ("network:3.5", .noSuchPosition(module: "network", revision: 3, index: 5, changes: 2)),
            ("network:2.0", .noSuchPosition(module: "network", revision: 2, index: 0, changes: 1)),
        ]
        for (cursor, reason) in expected {
            try await self.watching(["network"], after: WatchCursor(cursor)) { events in
                let start = await Self.untilReady(&events)
                #expect(start.first == .resync(reason: reason), "\(cursor)")
                guard case .ready(let position) = start.last else {
                    Issue.record("\(cursor): no ready in \(start)")
                    return
                }
                #expect(position.description == "network:3", "the cursor is not echoed back: \(cursor)")
            }
        }
        try await self.watching(["network"], after: WatchCursor("network:3.0")) { events in
            let replay = await Self.untilReady(&events)
            #expect(replay.count == 2, "the last change of revision 3, then ready: \(replay)")
        }
    }

    @Test("a cursor older than the history, or from another state, gets a resync and the current values")
    func resyncWhenHistoryIsShort() async throws {
        for port in 1...(ChangeHistory.limit + 2) {
            _ = try await self.settings.set(path: "proxy.port", input: .text("\(port)"), caller: Fixtures.root)
        }
        let latest = Int64(ChangeHistory.limit + 2)
        let expected: [(String, WatchResyncReason)] = [
            ("network:1", .historyTooShort(module: "network")),
            ("network:99999", .cursorAhead(module: "network", revision: latest)),
            ("display:3", .cursorLacksModule(module: "network")),
            ("network:0.0", .noSuchPosition(module: "network", revision: 0, index: 0, changes: 0)),
        ]
        for (cursor, reason) in expected {
            try await self.watching(["network.proxy.port"], after: WatchCursor(cursor)) { events in
                let start = await Self.untilReady(&events)
                #expect(start.first == .resync(reason: reason), "\(cursor)")
                guard case .current(let port, _, _) = start.dropFirst().first else { return }
                #expect(port.value == .int(Int64(ChangeHistory.limit + 2)))
            }
        }
    }

    @Test("cursors carry the state directory's history; one of another history starts over, one without any resumes")
    func cursorOfAnotherHistory() async throws {
        for port in 1...3 {
            _ = try await self.settings.set(path: "proxy.port", input: .text("\(port)"), caller: Fixtures.root)
        }
        try await self.watching(["network.proxy.port"], history: "5f3a9c01") { events in
            let start = await Self.untilReady(&events)
            guard case .ready(let cursor) = start.last else { return #expect(Bool(false), "\(start)") }
            #expect(cursor.description == "5f3a9c01/network:3")
        }
        // Revision 3 of another history says nothing of this one's, even at revisions this one reached.
        try await self.watching(["network.proxy.port"], after: WatchCursor("0badc0de/network:1"), history: "5f3a9c01") {
            events in
            let start = await Self.untilReady(&events)
            #expect(start.first == .resync(reason: .otherHistory(history: "0badc0de", current: "5f3a9c01")))
            guard case .current(let port, _, _) = start.dropFirst().first else { return #expect(Bool(false)) }
            #expect(port.value == .int(3))
        }
        // A state directory without a history token (read-only at start) takes no history as its own.
        try await self.watching(["network.proxy.port"], after: WatchCursor("0badc0de/network:1")) { events in
            #expect(
                await Self.untilReady(&events).first
                    == .resync(reason: .otherHistory(history: "0badc0de", current: nil))
            )
        }
        // The same history, and a cursor written before histories (none): the changes after it.
        for cursor in ["5f3a9c01/network:1", "network:1"] {
            try await self.watching(["network.proxy.port"], after: WatchCursor(cursor), history: "5f3a9c01") { events in
                let replay = await Self.untilReady(&events)
                #expect(replay.count == 3, "revisions 2 and 3, then ready: \(replay)")
                guard case .ready(let after) = replay.last else { return #expect(Bool(false)) }
                #expect(after.description == "5f3a9c01/network:3", "\(cursor)")
            }
        }
    }

    @Test("a history holding a value the schema rejects (a state file edited by hand) is not replayed: resync")
    func rejectedValueInHistory() async throws {
        let change = { (revision: Int64, old: SettingValue, new: SettingValue) in
            ChangeRecord(
                revision: revision,
                cause: .client(uid: 0, pid: 1),
                changes: [SettingChange(path: "proxy.port", old: old, oldLayer: .local, new: new, layer: .local)]
            )
        }
        // Revision 2 says the port became 70000, out of the schema's range: what the files hold is never served.
        let history = ChangeHistory(
            records: [
                change(1, .int(3128), .int(8080)), change(2, .int(8080), .int(70000)),
                change(3, .int(70000), .int(9090)), change(4, .int(9090), .int(9191)),
            ],
            floor: 0
        )
        let repository = InMemorySettingsRepository(
            states: ["network": ModuleState(revision: 4, local: ["proxy.port": .int(9191)], history: history)],
            feed: self.feed
        )
        let watcher = WatchInteractor(
            repository: repository,
            feed: self.feed,
            schemas: { [Fixtures.network] },
            logger: self.logger
        )
        // A watch of another key of the module is not concerned: it is not sent those values.
        let (others, otherSink) = AsyncStream<WatchEvent>.makeStream()
        await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await watcher.watch(targets: ["network.proxy.mode"], after: WatchCursor("network:0")) {
                    otherSink.yield($0)
                }
            }
            defer { group.cancelAll() }
            var iterator = others.makeAsyncIterator()
            let start = await Self.untilReady(&iterator)
            #expect(start.count == 1, "only ready, no resync: \(start)")
        }
        // From revision 2 on, the history holds the rejected value as the `old` of a change: also rejected (the
        // watcher would be told it, as what the key held).
        for (cursor, rejected) in [("network:0", true), ("network:1", true), ("network:2", true), ("network:3", false)]
        {
            let (events, sink) = AsyncStream<WatchEvent>.makeStream()
            await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await watcher.watch(targets: ["network.proxy.port"], after: WatchCursor(cursor)) {
                        sink.yield($0)
                    }
                }
                defer { group.cancelAll() }
                var iterator = events.makeAsyncIterator()
                let start = await Self.untilReady(&iterator)
                if rejected {
                    #expect(
                        start.first == .resync(reason: .historyRejected(module: "network", key: "network.proxy.port"))
                    )
                    guard case .current(let port, _, _) = start.dropFirst().first else {
                        Issue.record("no current value after the resync: \(start)")
                        return
                    }
                    #expect(port.value == .int(9191))
                } else {
                    // After the record with the rejected value, the history only holds values the schema accepts.
                    guard case .change(_, let change, _, _, _) = start.first else {
                        Issue.record("no replayed change: \(start)")
                        return
                    }
                    #expect(change.old == .int(9090) && change.new == .int(9191))
                }
            }
        }
    }

    @Test("a watcher that does not read gets a resync, not an unbounded backlog, and writers never wait")
    func slowWatcher() async throws {
        try await self.watching(["network.proxy.port"]) { events in
            _ = await Self.untilReady(&events)
            // The watch task is blocked on nobody: it keeps reading the feed into the stream. So block the feed
            // reader instead: a subscription nobody reads.
            let idle = self.feed.subscribe(modules: ["network"])
            for port in 2000..<2010 {
                _ = try await self.settings.set(path: "proxy.port", input: .text("\(port)"), caller: Fixtures.root)
            }
            #expect(await idle.next() == .overflow)
            // The watcher itself either kept up (ten changes) or fell behind (a resync, then the current value):
            // either way it ends with the last value.
            var last: SettingValue?
            while last != .int(2009), let event = await events.next() {
                switch event {
                case .change(_, let change, _, _, _): last = change.new
                case .current(let setting, _, _): last = setting.value
                default: continue
                }
            }
            #expect(last == .int(2009))
        }
    }

    @Test("a schema reload that changes a default in force is a change caused by the schema")
    func schemaReload() async throws {
        let reloaded = try Fixtures.network(portDefault: 3129)
        try await self.watching(["network.proxy.port"]) { events in
            _ = await Self.untilReady(&events)
            await SettingsInteractor(
                schema: reloaded,
                repository: self.repository,
                accounts: FakeAccounts(),
                logger: self.logger
            ).adopt(previous: Fixtures.network)
            guard case .change(_, let change, _, let cause, _) = await events.next() else { return }
            #expect(change.old == .int(3128) && change.new == .int(3129) && cause == .schema)
        }
    }
}

@Suite("Change history and cursors")
struct ChangeHistoryTests {
    static func record(_ revision: Int64) -> ChangeRecord {
        ChangeRecord(
            revision: revision,
            cause: .schema,
            changes: [
                SettingChange(
                    path: "a.b",
                    old: .int(revision - 1),
                    oldLayer: .local,
                    new: .int(revision),
                    layer: .local
                )
            ]
        )
    }

    @Test("the history keeps its last records and reaches back exactly to its floor")
    func bounded() {
        var history = ChangeHistory(floor: 5)
        for revision in 6...Int64(5 + ChangeHistory.limit + 10) { history.append(Self.record(revision)) }
        #expect(history.records.count == ChangeHistory.limit)
        #expect(history.floor == 15)
        #expect(history.records(after: 14) == nil)
        #expect(history.records(after: 15)?.first?.revision == 16)
        #expect(history.records(after: history.latest)?.isEmpty == true)
        #expect(history.records(after: history.latest + 1) == nil)
    }

    @Test("the history is bounded by its changes and the bytes of their values too, but keeps its latest record")
    func boundedByWeight() {
        func record(_ revision: Int64, keys: Int, text: String = "") -> ChangeRecord {
            ChangeRecord(
                revision: revision,
                cause: .client(uid: 0, pid: 1),
                changes: (0..<keys).map { key in
                    SettingChange(path: "s.k\(key)", old: nil, oldLayer: nil, new: .string(text), layer: .local)
                }
            )
        }
        // Loads of 1000 keys: 4 records reach the change limit, however few records that is.
        var loads = ChangeHistory(floor: 0)
        for revision in 1...Int64(10) { loads.append(record(revision, keys: 1000)) }
        #expect(loads.records.map(\.revision) == [7, 8, 9, 10])
        #expect(loads.floor == 6 && loads.records(after: 6)?.count == 4 && loads.records(after: 5) == nil)
        // One record larger than every bound is kept: a watcher one revision behind still resumes.
        loads.append(record(11, keys: ChangeHistory.changeLimit + 1))
        #expect(loads.records.map(\.revision) == [11] && loads.floor == 10)
        // Sets of a 60 KB value: the bytes bound keeps about 4 MiB of them, not 256.
        var large = ChangeHistory(floor: 0)
        let text = String(repeating: "x", count: 60_000)
        for revision in 1...Int64(200) { large.append(record(revision, keys: 1, text: text)) }
        #expect(large.records.count == ChangeHistory.byteLimit / 60_006)
        #expect(large.latest == 200 && large.floor == 200 - Int64(large.records.count))
        // Built from the records of a file, the same bounds hold.
        let read = ChangeHistory(records: (1...Int64(10)).map { record($0, keys: 1000) }, floor: 0)
        #expect(read.records.map(\.revision) == [7, 8, 9, 10])
    }

    @Test("records are found by revision, and equal histories are equal however they were built")
    func lookups() {
        var built = ChangeHistory(floor: 0)
        for revision in 1...Int64(ChangeHistory.limit + 40) { built.append(Self.record(revision)) }
        let floor = Int64(40)
        let records = (floor + 1...Int64(ChangeHistory.limit + 40)).map(Self.record)
        let whole = ChangeHistory(records: records, floor: floor)
        #expect(built == whole && built.hashValue == whole.hashValue)
        #expect(built.records == records)
        for revision in [floor + 1, floor + 17, floor + 100, built.latest] {
            #expect(built.record(at: revision)?.revision == revision)
            #expect(built.records(after: revision - 1)?.first?.revision == revision)
            #expect(built.records(after: revision - 1)?.count == Int(built.latest - revision + 1))
        }
        #expect(built.record(at: floor) == nil && built.record(at: built.latest + 1) == nil)
        var other = whole
        other.append(Self.record(built.latest + 1))
        #expect(other != whole && whole == built)
    }

    @Test("a revision given out without a record restarts the history there")
    func gap() {
        var history = ChangeHistory(floor: 0)
        history.append(Self.record(1))
        history.advance(to: 3, from: 2, record: Self.record(3))
        #expect(history.floor == 2 && history.records.map(\.revision) == [3])
        history.advance(to: 4, from: 3, record: nil)
        #expect(history.floor == 4 && history.records.isEmpty)
    }

    @Test("a revision that changed no effective value is kept: the history still reaches back across it")
    func recordWithoutChangesIsKept() {
        let unchanged = { (revision: Int64) in ChangeRecord(revision: revision, cause: .schema, changes: []) }
        var history = ChangeHistory(records: [Self.record(1), Self.record(2)], floor: 0)
        history.append(unchanged(3))
        history.advance(to: 4, from: 3, record: unchanged(4))
        history.append(Self.record(5))
        #expect(history.floor == 0)
        #expect(history.records(after: 1)?.map(\.revision) == [2, 3, 4, 5])
        #expect(history.record(at: 4)?.changes.isEmpty == true)
    }

    @Test("cursors read back what they write, and garbage is refused")
    func cursorText() {
        let cursor = WatchCursor(positions: ["network": .init(revision: 42, index: 1), "display": .init(revision: 7)])
        #expect(cursor.description == "display:7,network:42.1")
        #expect(WatchCursor(cursor.description) == cursor)
        for bad in ["", "network", "network:x", "network:-1", "network:1.2.3", "a:1,a:2", ":3"] {
            #expect(WatchCursor(bad) == nil, "\(bad)")
        }
        #expect(WatchCursor("display:0,network:10.0")?.description == "display:0,network:10.0")
        #expect(WatchCursor("a-b_9:9223372036854775807")?.positions["a-b_9"]?.revision == .max)
        // With the state directory's history first; after it, no position when nothing was watched.
        let stamped = WatchCursor(history: "5f3a9c01", positions: cursor.positions)
        #expect(stamped.description == "5f3a9c01/display:7,network:42.1")
        #expect(WatchCursor(stamped.description) == stamped)
        #expect(WatchCursor("0badc0de/") == WatchCursor(history: "0badc0de"))
        for bad in [
            "/network:1", "5F3A9C01/network:1", "5f3a9c0/network:1", "5f3a9c011/network:1", "5f3a9c01//network:1",
            "5f3a9c01/network:01", "g0000000/network:1", "5f3a9c01/network:1/2",
        ] {
            #expect(WatchCursor(bad) == nil, "\(bad)")
        }
    }

    @Test("a cursor is read only as the daemon writes it: no sign, no leading zero, no blank, ids as schemas have them")
    func cursorTextIsStrict() {
        let long = String(repeating: "m", count: ModuleSchema.maximumIDLength + 1)
        let bad = [
            "network:+1", "network:01", "network:00", "network:1.01", "network:1.+0", "network:1.", "network:.1",
            " network:1", "network:1 ", "network: 1", "network:1, display:2", "network:1,display:2",
            "network:1,network:1", "9net:1", "net.work:1", "net/work:1", "-net:1", "_net:1", "n\u{e9}t:1",
            "\(long):1", "network:9223372036854775808", "network:1,", ",network:1", "network::1", "network:1:2",
            "network:\u{0661}", "network:1e3", "network:0x1",
        ]
        for text in bad {
            #expect(WatchCursor(text) == nil, "\(text)")
        }
    }
}

/// A change of the modules served, as a schema reload makes it: told to watchers as changes of the modules.
@Suite("Watch Interactor: modules added and removed by a schema reload")
struct WatchModulesChangedTests {
    let feed = ChangeFeed()
    let repository: InMemorySettingsRepository
    let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
    let served = Served()
    static let extra = try! ModuleSchema(
        json: [
            "module": "extra", "title": "Extra",
            "sections": [
                ["id": "s", "title": "S", "items": [["id": "a", "title": "A", "type": "int", "default": 7]]]
            ],
        ]
    )

    init() {
        self.repository = InMemorySettingsRepository(feed: self.feed)
    }

    var builder: SettingsModuleBuilder {
        SettingsModuleBuilder(repository: self.repository, accounts: FakeAccounts(), logger: self.logger)
    }

    @Test("a watch of every module hears of one a reload adds (resync, then its values), and of one it removes")
    func everyModule() async throws {
        let (events, sink) = AsyncStream<WatchEvent>.makeStream()
        let served = self.served
        let watcher = WatchInteractor(
            repository: self.repository,
            feed: self.feed,
            schemas: { served.schemas.withLock { $0 } },
            logger: self.logger
        )
        await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await watcher.watch(targets: [], after: nil) { sink.yield($0) }
                sink.finish()
            }
            var iterator = events.makeAsyncIterator()
            let before = await WatchInteractorTests.untilReady(&iterator)
            served.schemas.withLock { $0.append(Self.extra) }
            await self.builder.adopt(schemas: [Fixtures.network, Self.extra], previous: [Fixtures.network])
            let restart = await WatchInteractorTests.untilReady(&iterator)
            // A watch of every module resumed from a cursor given out before the reload: the module was added.
            if case .ready(let old) = before.last {
                let resumed = Mutex<[WatchEvent]>([])
                try? await watcher.watch(targets: [], after: old) { event in
                    resumed.withLock { $0.append(event) }
                    if case .ready = event { throw CancellationError() }
                }
                let first = resumed.withLock { $0.first }
                #expect(first == .resync(reason: .moduleAdded(module: "extra")), "\(String(describing: first))")
            } else {
                Issue.record("no cursor before the reload: \(before)")
            }
            guard case .resync(.moduleAdded(module: "extra")) = restart.first, case .ready(let cursor) = restart.last
            else {
                Issue.record("expected a resync for the added module, got \(restart)")
                return
            }
            let keys = restart.compactMap { event -> String? in
                guard case .current(let setting, _, _) = event else { return nil }
                return setting.key.description
            }
            #expect(keys.contains("extra.s.a") && keys.contains("network.proxy.port"))
            #expect(cursor.positions["extra"]?.revision == 1, "the addition is a change of the module")
            served.schemas.withLock { $0 = [Fixtures.network] }
            await self.builder.adopt(schemas: [Fixtures.network], previous: [Fixtures.network, Self.extra])
            guard case .change(let module, let change, let revision, let cause, _) = await iterator.next() else {
                Issue.record("expected the removal of extra.s.a")
                return
            }
            #expect(module == "extra" && change.path == "s.a" && change.old == .int(7) && change.new == nil)
            #expect(revision == 2 && cause == .schema)
            group.cancelAll()
        }
    }

    @Test(
        "a reload that adds a module and changes another's default: the current values sent after the resync hold at their cursor, and the change is not told again",
        .timeLimit(.minutes(1))
    )
    func reloadAddingAndChanging() async throws {
        let (events, sink) = AsyncStream<WatchEvent>.makeStream()
        let served = self.served
        let reloads = SchemaReloadGate()
        let watcher = WatchInteractor(
            repository: self.repository,
            feed: self.feed,
            schemas: { served.schemas.withLock { $0 } },
            reloads: reloads,
            logger: self.logger
        )
        let reloaded = try Fixtures.network(portDefault: 3129)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await watcher.watch(targets: [], after: nil) { sink.yield($0) }
                sink.finish()
            }
            defer { group.cancelAll() }
            var iterator = events.makeAsyncIterator()
            _ = await WatchInteractorTests.untilReady(&iterator)
            // The daemon's reload: new schemas served, then what they changed stored, module by module.
            await reloads.beginReload()
            served.schemas.withLock { $0 = [Self.extra, reloaded] }
            await self.builder.adopt(schemas: [Self.extra], previous: [])
            guard case .resync(.moduleAdded(module: "extra")) = await iterator.next() else {
                Issue.record("expected a resync for the added module")
                return
            }
            // The watcher waits for the reload to end before it reads the values (else the port's new default
            // would go out at the revision before the change that brings it).
            while reloads.waitingReaders == 0 { await Task.yield() }
            await self.builder.adopt(schemas: [reloaded], previous: [Fixtures.network])
            reloads.endReload()
            let restart = await WatchInteractorTests.untilReady(&iterator)
            let port = restart.compactMap { event -> (SettingValue, Int64)? in
                guard case .current(let setting, let revision, _) = event,
                    setting.key.description == "network.proxy.port"
                else { return nil }
                return (setting.value, revision)
            }
            guard case .ready(let cursor) = restart.last, let (value, revision) = port.first else {
                Issue.record("expected the current values and ready, got \(restart)")
                return
            }
            #expect(value == .int(3129) && revision == 1 && cursor.positions["network"]?.revision == 1)
            // The next event is the next change, not the default's change again.
            _ = try await SettingsInteractor(
                schema: reloaded,
                repository: self.repository,
                accounts: FakeAccounts(),
                logger: self.logger
            ).set(path: "proxy.mode", input: .text("auto"), caller: Fixtures.root)
            guard case .change(_, let change, let changed, _, _) = await iterator.next() else {
                Issue.record("expected the change of proxy.mode")
                return
            }
            #expect(change.path == "proxy.mode" && changed == 2)
        }
    }

    @Test("a cursor a module no longer served cannot resume from (ahead of it) is NoSuchModule, not an empty watch")
    func retiredModuleCursorAhead() async throws {
        await self.builder.adopt(schemas: [Fixtures.network, Self.extra], previous: [Fixtures.network])
        await self.builder.adopt(schemas: [Fixtures.network], previous: [Fixtures.network, Self.extra])
        let watcher = WatchInteractor(
            repository: self.repository,
            feed: self.feed,
            schemas: { [Fixtures.network] },
            logger: self.logger
        )
        await #expect(throws: SettingsFailure.noSuchModule(module: "extra")) {
            try await watcher.watch(targets: ["extra"], after: WatchCursor("extra:5")) { _ in }
        }
        // From a cursor it printed, the removal is replayed.
        let (events, sink) = AsyncStream<WatchEvent>.makeStream()
        await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await watcher.watch(targets: ["extra"], after: WatchCursor("extra:1")) { sink.yield($0) }
            }
            defer { group.cancelAll() }
            var iterator = events.makeAsyncIterator()
            let replayed = await WatchInteractorTests.untilReady(&iterator)
            guard case .change(_, let change, 2, _, _) = replayed.first else {
                Issue.record("expected the removal of extra.s.a, got \(replayed)")
                return
            }
            #expect(change.path == "s.a" && change.new == nil)
        }
    }

    @Test("a watch of a key its module no longer has, resumed from before the removal, is told the removal")
    func removedKeyResumed() async throws {
        var json = Fixtures.networkJSON.objectValue!
        var sections = json["sections"]!.arrayValue!
        var dns = sections[1].objectValue!
        dns["items"] = .array([dns["items"]!.arrayValue![1]])
        sections[1] = .object(dns)
        json["sections"] = .array(sections)
        let without = try ModuleSchema(json: .object(json))
        await self.builder.adopt(schemas: [without], previous: [Fixtures.network])
        let watcher = WatchInteractor(
            repository: self.repository,
            feed: self.feed,
            schemas: { [without] },
            logger: self.logger
        )
        // Without a cursor, or one whose history never names the key, it is no such key.
        await #expect(throws: SettingsFailure.noSuchKey(key: "network.dns.cache")) {
            try await watcher.watch(targets: ["network.dns.cache"], after: nil) { _ in }
        }
        await #expect(throws: SettingsFailure.noSuchKey(key: "network.dns.nope")) {
            try await watcher.watch(targets: ["network.dns.nope"], after: WatchCursor("network:0")) { _ in }
        }
        let (events, sink) = AsyncStream<WatchEvent>.makeStream()
        await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await watcher.watch(targets: ["network.dns.cache"], after: WatchCursor("network:0")) {
                    sink.yield($0)
                }
            }
            defer { group.cancelAll() }
            var iterator = events.makeAsyncIterator()
            let replayed = await WatchInteractorTests.untilReady(&iterator)
            guard case .change(_, let change, 1, .schema, _) = replayed.first, case .ready = replayed.last else {
                Issue.record("expected the removal of dns.cache, then ready, got \(replayed)")
                return
            }
            #expect(change.path == "dns.cache" && change.old == .bool(true) && change.new == nil)
        }
    }

    @Test("a module whose state files load again: its watchers start over (resync, then the current values)")
    func stateReloaded() async throws {
        let (events, sink) = AsyncStream<WatchEvent>.makeStream()
        let watcher = WatchInteractor(
            repository: self.repository,
            feed: self.feed,
            schemas: { [Fixtures.network] },
            logger: self.logger
        )
        await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await watcher.watch(targets: ["network.proxy.port"], after: nil) { sink.yield($0) }
                sink.finish()
            }
            var iterator = events.makeAsyncIterator()
            _ = await WatchInteractorTests.untilReady(&iterator)
            self.feed.reset(module: "network", cause: .stateReloaded)
            let restart = await WatchInteractorTests.untilReady(&iterator)
            guard case .resync(.stateReloaded(module: "network")) = restart.first, restart.count == 3 else {
                Issue.record("expected a resync, the current value and ready, got \(restart)")
                return
            }
            group.cancelAll()
        }
    }

    @Test("at start, a module without a kept schema is not told as added; one no longer served is told as removed")
    func atStart() async throws {
        await self.builder.adopt(
            schemas: [Fixtures.network],
            previous: [Self.extra],
            addedModulesAreNew: false
        )
        #expect(try await self.repository.state(of: "network").revision == 0)
        let extra = try await self.repository.state(of: "extra")
        #expect(extra.revision == 1)
        #expect(extra.history.record(at: 1)?.changes.map(\.path) == ["s.a"])
    }

    @Test("at start, a module whose schema before is unknown: its history starts over (resync), no key told as added")
    func unknownPrevious() async throws {
        _ = try await self.repository.update(module: "network") {
            LocalChange(set: ["proxy.port": .int(9)], revision: $0.revision + 1)
        }
        await self.builder.adopt(
            schemas: [Fixtures.network, Self.extra],
            previous: [Self.extra],
            unknownPrevious: ["network"],
            addedModulesAreNew: true
        )
        let network = try await self.repository.state(of: "network")
        #expect(network.revision == 2 && network.local == ["proxy.port": .int(9)])
        #expect(network.history.record(at: 2) == nil, "no change is made up")
        #expect(network.history.records(after: 1) == nil, "a watcher resuming from before gets a resync")
        #expect(network.history.records(after: 2)?.isEmpty == true)
        #expect(try await self.repository.state(of: "extra").revision == 0, "a known schema, unchanged")
    }
}

/// The schemas served, changed by a test as a reload changes them.
final class Served: Sendable {
    let schemas = Mutex<[ModuleSchema]>([Fixtures.network])
}

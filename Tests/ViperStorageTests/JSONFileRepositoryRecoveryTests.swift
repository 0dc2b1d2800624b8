import Foundation
import SettingsAPI
import Testing
import ViperSettings
import ViperStorage
import ViperTestSupport

/// Loading: snapshots and journals that a crash or a bad edit left behind are repaired, never fatal.
@Suite("JSONFileRepository recovery")
struct JSONFileRepositoryRecoveryTests {
    let scratch = Scratch()

    @Test("a snapshot and its journal load together")
    func snapshotAndJournal() async throws {
        try Files.write(
            #"{"format": 1, "module": "network", "revision": 5, "local": {"proxy.port": 8080, "proxy.mode": "x"}}"#,
            to: self.scratch.file("network.json")
        )
        try Files.write(
            journalLine(revision: 6, set: ["proxy.port": 3128]) + journalLine(revision: 7, remove: ["proxy.mode"]),
            to: self.scratch.file("network.journal")
        )
        let recorder = LogRecorder()
        let state = try await makeRepository(self.scratch.path, recorder: recorder).state(of: "network")
        #expect(state == ModuleState(revision: 7, local: ["proxy.port": .int(3128)]))
        #expect(recorder.messages(at: .warning).isEmpty && recorder.messages(at: .error).isEmpty)
    }

    @Test("a corrupt snapshot is moved aside and the module serves its journal")
    func corruptSnapshot() async throws {
        try Files.write("{\"format\": 1,\n  \"module\": oops}", to: self.scratch.file("network.json"))
        try Files.write(journalLine(revision: 3, set: ["proxy.port": 8080]), to: self.scratch.file("network.journal"))
        let recorder = LogRecorder()
        let repository = makeRepository(self.scratch.path, recorder: recorder)
        // The snapshot's revision is lost: the module goes on above every revision its files name.
        #expect(
            try await repository.state(of: "network") == ModuleState(revision: 4, local: ["proxy.port": .int(8080)])
        )
        let aside = self.scratch.file("network.json.corrupt-\(testTimestamp)")
        #expect(Files.exists(aside))
        #expect(try JSONValue(parsing: Files.read(self.scratch.file("network.json")))["revision"] == 4)
        #expect(try Files.read(aside) == "{\"format\": 1,\n  \"module\": oops}")
        let errors = recorder.messages(at: .error)
        #expect(errors.count == 1)
        #expect(errors.first?.contains("line 2, column 13") == true)
        #expect(errors.first?.contains(aside) == true)
        #expect(recorder.entries.first { $0.level == .error }?.metadata["module"] == "network")
        // The module goes on: writes work and survive.
        _ = try await repository.update(module: "network") {
            LocalChange(set: ["proxy.mode": .string("auto")], revision: $0.revision + 1)
        }
        await repository.close()
        let reopened = try await makeRepository(self.scratch.path).state(of: "network")
        #expect(reopened == ModuleState(revision: 5, local: ["proxy.port": .int(8080), "proxy.mode": .string("auto")]))
    }

    @Test(
        "a snapshot lost after a graceful stop (journal folded into it) does not take the revision back",
        arguments: ["", "garbage", nil]
    )
    func snapshotLostAfterClose(replacement: String?) async throws {
        let repository = makeRepository(self.scratch.path)
        for revision in Int64(1)...3 {
            _ = try await repository.update(module: "network") { _ in
                LocalChange(set: ["proxy.port": .int(1000 + revision)], revision: revision)
            }
        }
        await repository.close()
        if let replacement {
            try Files.write(replacement, to: self.scratch.file("network.json"))
        } else {
            try FileManager.default.removeItem(atPath: self.scratch.file("network.json"))
        }
        let recorder = LogRecorder()
        let state = try await makeRepository(self.scratch.path, recorder: recorder).state(of: "network")
        // The values are gone with the snapshot, but revision 3 named a state that is no longer there: the module
        // goes on above it (a watcher's cursor or a compare-and-set from before must not match what follows).
        #expect(state.local.isEmpty)
        #expect(state.revision > 3, "revision \(state.revision)")
        #expect(state.history.records(after: 2) == nil)
        #expect(!recorder.messages(at: .error).isEmpty, "the loss is logged as an error")
    }

    @Test("a snapshot older than the one the journal was folded into (a backup restored) goes on above the journal")
    func olderSnapshotRestored() async throws {
        let repository = makeRepository(self.scratch.path)
        _ = try await repository.update(module: "network") { _ in
            LocalChange(set: ["proxy.port": .int(75)], revision: 1)
        }
        await repository.close()
        let backup = try Files.read(self.scratch.file("network.json"))
        _ = try await repository.update(module: "network") { _ in
            LocalChange(set: ["proxy.port": .int(144)], revision: 2)
        }
        await repository.close()
        try Files.write(backup, to: self.scratch.file("network.json"))
        let recorder = LogRecorder()
        let state = try await makeRepository(self.scratch.path, recorder: recorder).state(of: "network")
        // Revision 2 named port 144: the restored state (port 75) must not be served under it.
        #expect(state.local == ["proxy.port": .int(75)])
        #expect(state.revision > 2, "revision \(state.revision)")
        #expect(state.history.records(after: 1) == nil)
        #expect(recorder.messages(at: .error).contains { $0.contains("older than revision 2") })
    }

    @Test("a symbolic link planted in the state directory is never written through: snapshot, journal")
    func plantedLinks() async throws {
        let victim = self.scratch.path + "-victim"
        try Files.write("precious\n", to: victim)
        defer { try? FileManager.default.removeItem(atPath: victim) }
        let repository = makeRepository(self.scratch.path)
        _ = try await repository.update(module: "network") { _ in
            LocalChange(set: ["proxy.port": .int(8080)], revision: 1)
        }
        // The temporary snapshot a graceful stop writes.
        try FileManager.default.createSymbolicLink(
            atPath: self.scratch.file(".network.json.tmp"),
            withDestinationPath: victim
        )
        await repository.close()
        #expect(try Files.read(victim) == "precious\n")
        #expect(try JSONValue(parsing: Files.read(self.scratch.file("network.json")))["revision"] == 1)
        // A journal replaced by a link while the daemon runs (the journal is reopened after the stop's close): a
        // write fails rather than append to what the link points to.
        try FileManager.default.removeItem(atPath: self.scratch.file("network.journal"))
        try FileManager.default.createSymbolicLink(
            atPath: self.scratch.file("network.journal"),
            withDestinationPath: victim
        )
        await #expect(throws: StorageError.self) {
            _ = try await repository.update(module: "network") { _ in
                LocalChange(set: ["proxy.port": .int(9090)], revision: 2)
            }
        }
        #expect(try Files.read(victim) == "precious\n")
    }

    @Test(
        "a snapshot of the wrong shape is corrupt",
        arguments: [
            #"[1, 2]"#,
            #"{"format": 2, "module": "network", "revision": 1, "local": {}}"#,
            #"{"format": 1, "module": "display", "revision": 1, "local": {}}"#,
            #"{"format": 1, "module": "network", "revision": "7", "local": {}}"#,
            #"{"format": 1, "module": "network", "revision": 1, "local": [1]}"#,
            "",
        ]
    )
    func wrongShape(text: String) async throws {
        try Files.write(text, to: self.scratch.file("network.json"))
        let recorder = LogRecorder()
        let state = try await makeRepository(self.scratch.path, recorder: recorder).state(of: "network")
        #expect(state.local.isEmpty && state.revision >= 1)
        #expect(Files.exists(self.scratch.file("network.json.corrupt-\(testTimestamp)")))
        #expect(recorder.messages(at: .error).count == 1)
    }

    @Test("a second corrupt file in the same second gets its own name")
    func corruptTwice() async throws {
        try Files.write("nope", to: self.scratch.file("network.json.corrupt-\(testTimestamp)"))
        try Files.write("nope again", to: self.scratch.file("network.json"))
        _ = try await makeRepository(self.scratch.path).state(of: "network")
        #expect(try Files.read(self.scratch.file("network.json.corrupt-\(testTimestamp)")) == "nope")
        #expect(try Files.read(self.scratch.file("network.json.corrupt-\(testTimestamp)-2")) == "nope again")
    }

    @Test("files are moved aside with the current UTC time by default")
    func defaultTimestamp() async throws {
        try Files.write("{", to: self.scratch.file("network.json"))
        let repository = JSONFileRepository(
            directory: self.scratch.path,
            threadPool: .singleton,
            logger: LogRecorder().logger
        )
        _ = try await repository.state(of: "network")
        let names = Files.list(self.scratch.path).filter { $0.contains("corrupt") }
        #expect(names.count == 1)
        let name = try #require(names.first)
        #expect(name.wholeMatch(of: /network\.json\.corrupt-20\d{6}T\d{6}Z/) != nil, "\(name)")
    }

    @Test("remote layers in a snapshot are tolerated; invalid stored values are skipped with a warning")
    func toleratedContent() async throws {
        try Files.write(
            #"""
            {"format": 1, "module": "network", "revision": 2,
             "local": {"proxy.port": 8080, "proxy.bad": null, "proxy.worse": {"x": 1}, "proxy.mixed": ["a", 1]},
             "recommended": {"proxy.mode": "auto"}, "mandatory": {"proxy.port": 1}}
            """#,
            to: self.scratch.file("network.json")
        )
        try Files.write(
            journalLine(revision: 3, set: ["proxy.mode": "manual", "proxy.null": nil]),
            to: self.scratch.file("network.journal")
        )
        let recorder = LogRecorder()
        let state = try await makeRepository(self.scratch.path, recorder: recorder).state(of: "network")
        #expect(state == ModuleState(revision: 3, local: ["proxy.port": .int(8080), "proxy.mode": .string("manual")]))
        let warnings = recorder.messages(at: .warning)
        #expect(warnings.count == 2)
        #expect(warnings.first?.contains("proxy.bad") == true && warnings.first?.contains("proxy.mixed") == true)
        #expect(warnings.last?.contains("proxy.null") == true)
        #expect(recorder.messages(at: .error).isEmpty)
        #expect(Files.list(self.scratch.path) == ["network.journal", "network.json"])
    }

    @Test("a torn last journal line without newline is dropped and cut off")
    func tornLastLine() async throws {
        let good = journalLine(revision: 1, set: ["proxy.port": 1]) + journalLine(revision: 2, set: ["proxy.port": 2])
        try Files.write(good + #"{"revision":3,"set":{"proxy.po"#, to: self.scratch.file("network.journal"))
        let recorder = LogRecorder()
        let repository = makeRepository(self.scratch.path, recorder: recorder)
        #expect(try await repository.state(of: "network") == ModuleState(revision: 2, local: ["proxy.port": .int(2)]))
        #expect(try Files.read(self.scratch.file("network.journal")) == good)
        #expect(recorder.messages(at: .warning).count == 1)
        #expect(recorder.messages(at: .warning).first?.contains("line 3") == true)
        _ = try await repository.update(module: "network") {
            LocalChange(set: ["proxy.port": .int(3)], revision: $0.revision + 1)
        }
        #expect(try Files.journalLines(self.scratch.file("network.journal")).count == 3)
        let reopened = try await makeRepository(self.scratch.path).state(of: "network")
        #expect(reopened == ModuleState(revision: 3, local: ["proxy.port": .int(3)]))
    }

    @Test("an unparsable last journal line that has its newline was a complete append: set aside, never reused")
    func unparsableLastLine() async throws {
        let good = journalLine(revision: 1, set: ["proxy.port": 1])
        // A whole line (the writer ends each record with its newline in the same write), mangled since: what it
        // held was acknowledged, so its revision (2, still readable) is not given to another state.
        let journal = good + #"{"revision": 2, "set": [oops]}"# + "\n"
        try Files.write(journal, to: self.scratch.file("network.journal"))
        let recorder = LogRecorder()
        let state = try await makeRepository(self.scratch.path, recorder: recorder).state(of: "network")
        #expect(state == ModuleState(revision: 3, local: ["proxy.port": .int(1)]))
        #expect(try Files.read(self.scratch.file("network.journal.corrupt-\(testTimestamp)")) == journal)
        #expect(recorder.messages(at: .error).count == 1)
    }

    @Test("a line that reads as JSON but lost or misspelt a member (a flipped byte) is corrupt, not a no-op record")
    func lineMissingAMember() async throws {
        let good = journalLine(revision: 1, set: ["proxy.port": 1])
        for line in [
            #"{"revision":2,"sxt":{"proxy.host":"foo"},"remove":[]}"#, #"{"revision":2,"set":{"proxy.host":"foo"}}"#,
            #"{"revision":2,"rxmove":[],"set":{}}"#, #"{"revision":2}"#,
        ] {
            let scratch = Scratch()
            try Files.write(good + line + "\n", to: scratch.file("network.journal"))
            let recorder = LogRecorder()
            let state = try await makeRepository(scratch.path, recorder: recorder).state(of: "network")
            #expect(state == ModuleState(revision: 3, local: ["proxy.port": .int(1)]), "\(line)")
            #expect(Files.exists(scratch.file("network.journal.corrupt-\(testTimestamp)")), "\(line)")
            #expect(recorder.messages(at: .error).count == 1, "\(line)")
        }
    }

    @Test("a member it does not know is left alone (a later version may add one): the line is applied")
    func unknownMemberIsLeftAlone() async throws {
        let line = #"{"revision":2,"set":{"proxy.port":2},"remove":[],"later":true}"#
        try Files.write(
            journalLine(revision: 1, set: ["proxy.port": 1]) + line + "\n",
            to: self.scratch.file("network.journal")
        )
        let state = try await makeRepository(self.scratch.path).state(of: "network")
        #expect(state.revision == 2 && state.local == ["proxy.port": .int(2)])
    }

    @Test("journal records at or below the snapshot's revision are in it: not applied again, the revision kept")
    func recordsBelowTheSnapshot() async throws {
        try Files.write(
            #"{"format": 1, "module": "network", "revision": 5, "local": {"proxy.port": 5}}"#,
            to: self.scratch.file("network.json")
        )
        // Left by a crash between writing the snapshot and cutting the journal, or appended by hand.
        let journal =
            journalLine(revision: 4, set: ["proxy.port": 4]) + journalLine(revision: 5, set: ["proxy.port": 55])
        try Files.write(journal, to: self.scratch.file("network.journal"))
        let state = try await makeRepository(self.scratch.path).state(of: "network")
        #expect(state.revision == 5 && state.local == ["proxy.port": .int(5)], "\(state)")
        // A record above it is applied.
        try Files.write(
            journal + journalLine(revision: 6, set: ["proxy.port": 6]),
            to: self.scratch.file("network.journal")
        )
        let next = try await makeRepository(self.scratch.path).state(of: "network")
        #expect(next.revision == 6 && next.local == ["proxy.port": .int(6)], "\(next)")
    }

    @Test("a snapshot whose history names a revision above its own (a damaged digit) goes on above the history")
    func historyAboveTheSnapshot() async throws {
        let record = #"{"revision": 50, "cause": {"uid": 0, "pid": 1}, "changes": []}"#
        try Files.write(
            #"{"format": 1, "module": "network", "revision": 2, "local": {"proxy.port": 5}, "history": {"floor": 49, "records": [\#(record)]}}"#,
            to: self.scratch.file("network.json")
        )
        let recorder = LogRecorder()
        let state = try await makeRepository(self.scratch.path, recorder: recorder).state(of: "network")
        #expect(state.revision == 51 && state.local == ["proxy.port": .int(5)], "\(state)")
        #expect(
            recorder.messages(at: .warning).contains {
                $0.contains("is at revision 2 but its history names revision 50")
            },
            "\(recorder.messages(at: .warning))"
        )
        // A history that does not read is said, at notice.
        try Files.write(
            #"{"format": 1, "module": "display", "revision": 3, "local": {}, "history": "x"}"#,
            to: self.scratch.file("display.json")
        )
        let other = LogRecorder()
        #expect(try await makeRepository(self.scratch.path, recorder: other).state(of: "display").revision == 3)
        #expect(other.messages(at: .notice).contains { $0.contains("does not read") }, "\(other.messages(at: .notice))")
    }

    @Test("complete lines that cannot be read at all each held a revision: the module goes on above all of them")
    func unreadableLinesCountAsRevisions() async throws {
        let journal =
            journalLine(revision: 1, set: ["proxy.port": 1]) + journalLine(revision: 2, set: ["proxy.port": 2])
            + "{garbage\n{garbage\n"
        try Files.write(journal, to: self.scratch.file("network.journal"))
        let state = try await makeRepository(self.scratch.path).state(of: "network")
        // Revisions 3 and 4 were given out (acknowledged) for the two lost lines: 5 is the first never given.
        #expect(state == ModuleState(revision: 5, local: ["proxy.port": .int(2)]))
    }

    @Test("a corrupt line's revision written with an exponent counts as the number it is, 1e30 as beyond 64 bits")
    func revisionWithExponent() async throws {
        let good = journalLine(revision: 1, set: ["proxy.port": 1])
        for (line, expected) in [
            (#"{"revision":1e30,"set":{},"remove":[]}"#, Int64.max), (#"{"revision":4.0e1,"set":{},"remove":[]}"#, 41),
            (#"{"revision":1e400,"set":{},"remove":[]}"#, Int64.max),
        ] {
            let scratch = Scratch()
            try Files.write(good + line + "\n", to: scratch.file("network.journal"))
            let state = try await makeRepository(scratch.path).state(of: "network")
            #expect(state.revision == expected, "\(line)")
        }
    }

    @Test("a journal whose revision goes back is corrupt from that line: set aside, the module goes on above")
    func revisionGoingBack() async throws {
        let journal =
            journalLine(revision: 4, set: ["proxy.port": 4]) + journalLine(revision: 6, set: ["proxy.port": 6])
            + journalLine(revision: 2, set: ["proxy.port": 2])
        try Files.write(journal, to: self.scratch.file("network.journal"))
        let state = try await makeRepository(self.scratch.path).state(of: "network")
        #expect(state.local == ["proxy.port": .int(6)])
        // The bad line was appended after revision 6, so it held 7 or more, whatever it says now: 8 is safe.
        #expect(state.revision == 8, "above every revision the journal shows, and above every line it holds")
        #expect(Files.exists(self.scratch.file("network.journal.corrupt-\(testTimestamp)")))
    }

    @Test("a revision repeated by a line that changes a value is corrupt; repeated by one that changes none, it is not")
    func revisionRepeated() async throws {
        let changes =
            #","cause":{"uid":0,"pid":1},"changes":[{"key":"proxy.port","layer":"local","new":5,"old":4,"oldLayer":"local"}]}"#
        let repeated = journalLine(revision: 4, set: ["proxy.port": 5]).dropLast(2) + changes + "\n"
        let quiet = journalLine(revision: 4, set: ["proxy.mode": "auto"])
        let journal = journalLine(revision: 4, set: ["proxy.port": 4]) + quiet + repeated
        try Files.write(journal, to: self.scratch.file("network.journal"))
        let recorder = LogRecorder()
        let state = try await makeRepository(self.scratch.path, recorder: recorder).state(of: "network")
        #expect(state.local == ["proxy.port": .int(4), "proxy.mode": .string("auto")], "the line before it stays")
        // The bad line came after two lines at revision 4: it may have held 5, so 6 is the first never given out.
        #expect(state.revision == 6, "above every revision the journal shows, and above every line it holds")
        #expect(recorder.messages(at: .error).contains { $0.contains("revision 4 again, with changes") })
    }

    @Test(
        "a journal without its snapshot that starts after revision 1 says the snapshot is missing; a young one does not"
    )
    func snapshotMissing() async throws {
        try Files.write(journalLine(revision: 1, set: ["proxy.port": 1]), to: self.scratch.file("display.journal"))
        try Files.write(journalLine(revision: 8, set: ["proxy.port": 8]), to: self.scratch.file("network.journal"))
        let recorder = LogRecorder()
        let repository = makeRepository(self.scratch.path, recorder: recorder)
        #expect(try await repository.state(of: "display").revision == 1)
        #expect(recorder.messages(at: .error).isEmpty)
        let network = try await repository.state(of: "network")
        #expect(network.revision == 8 && network.local == ["proxy.port": .int(8)])
        #expect(
            recorder.messages(at: .error).count == 1
                && recorder.messages(at: .error)[0].contains("its journal starts at revision 8")
        )
    }

    @Test("a corrupt line in the middle keeps the records before it, moves the journal aside, writes a snapshot")
    func corruptMiddleLine() async throws {
        let journal =
            journalLine(revision: 1, set: ["proxy.port": 1]) + journalLine(revision: 2, set: ["proxy.mode": "auto"])
            + "{\"revision\": oops}\n" + journalLine(revision: 4, set: ["proxy.port": 4])
        try Files.write(journal, to: self.scratch.file("network.journal"))
        let recorder = LogRecorder()
        let repository = makeRepository(self.scratch.path, recorder: recorder)
        // Revisions never go back: revision 4 was given out, so the module goes on above it.
        let expected = ModuleState(revision: 5, local: ["proxy.port": .int(1), "proxy.mode": .string("auto")])
        #expect(try await repository.state(of: "network") == expected)
        let aside = self.scratch.file("network.journal.corrupt-\(testTimestamp)")
        #expect(try Files.read(aside) == journal)
        #expect(!Files.exists(self.scratch.file("network.journal")))
        let snapshot = try JSONValue(parsing: Files.read(self.scratch.file("network.json")))
        #expect(snapshot["revision"] == 5 && snapshot["local"] == ["proxy.port": 1, "proxy.mode": "auto"])
        let errors = recorder.messages(at: .error)
        #expect(errors.count == 1)
        #expect(errors.first?.contains("Line 3") == true && errors.first?.contains(aside) == true)
        _ = try await repository.update(module: "network") {
            LocalChange(set: ["proxy.port": .int(5)], revision: $0.revision + 1)
        }
        let reopened = try await makeRepository(self.scratch.path).state(of: "network")
        #expect(reopened == ModuleState(revision: 6, local: ["proxy.port": .int(5), "proxy.mode": .string("auto")]))
    }

    @Test("a crash between a compaction's rename and its journal cut replays to the same state")
    func crashDuringCompaction() async throws {
        // The snapshot already holds the journal's records: replaying them again must change nothing.
        try Files.write(
            #"{"format": 1, "module": "network", "revision": 3, "local": {"proxy.port": 3}}"#,
            to: self.scratch.file("network.json")
        )
        try Files.write(
            journalLine(revision: 1, set: ["proxy.port": 1, "proxy.mode": "auto"])
                + journalLine(revision: 2, remove: ["proxy.mode"]) + journalLine(revision: 3, set: ["proxy.port": 3]),
            to: self.scratch.file("network.journal")
        )
        let state = try await makeRepository(self.scratch.path).state(of: "network")
        #expect(state == ModuleState(revision: 3, local: ["proxy.port": .int(3)]))
    }

    @Test("a stale temporary snapshot is removed and never read")
    func staleTemporary() async throws {
        try Files.write("{half a snap", to: self.scratch.file(".network.json.tmp"))
        let state = try await makeRepository(self.scratch.path).state(of: "network")
        #expect(state == .empty)
        #expect(Files.list(self.scratch.path).isEmpty)
    }

    @Test(
        "module names that could escape the directory, or too long for their files to be named, are refused",
        arguments: ["", ".hidden", "../etc", "a/b", "/abs", String(repeating: "m", count: 129)]
    )
    func invalidNames(name: String) async throws {
        let repository = makeRepository(self.scratch.path)
        await #expect(throws: StorageError.self) { try await repository.state(of: name) }
        await #expect(throws: StorageError.self) {
            try await repository.update(module: name) { _ in LocalChange(revision: 1) }
        }
        #expect(Files.list(self.scratch.path).isEmpty)
    }
}

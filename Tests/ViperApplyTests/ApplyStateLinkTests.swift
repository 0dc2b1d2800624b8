import Foundation
import Glibc
import Logging
import SettingsAPI
import Testing
import ViperTestSupport

@testable import ViperApply

/// The applier's `state.json` is neither read nor written through a symbolic link: the applier runs as root, and
/// whoever can write its state directory must not make it read, move or replace a file of root's.
@Suite("ApplyStateStore: symbolic links")
struct ApplyStateLinkTests {
    /// A state a file of root's could hold: what the applier would take for its own, were the link followed.
    static let victimState = "{\"cursor\":\"network:7\",\"values\":{},\"revisions\":{},\"outcomes\":{}}\n"

    /// `state.json` in `directory`, a link to a file of root's (mode 0600) holding `content`; returns the file's path.
    static func plantLink(in directory: String, content: String) throws -> String {
        let victim = directory + "/root-only"
        try Files.write(content, to: victim)
        try #require(chmod(victim, 0o600) == 0)
        try #require(symlink(victim, directory + "/state.json") == 0)
        return victim
    }

    /// The link is still there, pointing to `victim`, which holds `content` with mode 0600.
    static func expectUntouched(_ directory: String, victim: String, content: String) throws {
        let link = try #require(Files.linkStatus(directory + "/state.json"))
        #expect(link.st_mode & S_IFMT == S_IFLNK, "the link is neither moved aside nor replaced")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: directory + "/state.json") == victim)
        let status = try #require(Files.linkStatus(victim))
        #expect(status.st_mode & S_IFMT == S_IFREG && status.st_mode & 0o7777 == 0o600)
        #expect(try Files.read(victim) == content)
        #expect(!Files.exists(directory + "/state.json.corrupt"))
        #expect(Files.list(directory).allSatisfy { !$0.contains("viper-apply") }, "no temporary file left")
    }

    @Test("a state.json that is a link is not read, whatever it points to, nor moved aside: an error names it")
    func loadRefusesLink() async throws {
        for content in [Self.victimState, "Root only, not JSON"] {
            try await TemporaryDirectory.with { directory in
                let victim = try Self.plantLink(in: directory, content: content)
                let store = ApplyStateStore(path: directory + "/state.json")
                let error = #expect(throws: ApplyError.self) { try store.load() }
                let message = error.map { "\($0)" } ?? ""
                #expect(
                    message.contains(
                        "state file \(directory)/state.json: is a symbolic link (to \(victim)); the applier neither "
                            + "reads nor writes its state through a link: remove it"
                    ),
                    "\(message)"
                )
                #expect(!message.contains("Root"), "nothing of the file it points to is shown")
                try Self.expectUntouched(directory, victim: victim, content: content)
            }
        }
    }

    @Test("a state.json that is a link is not written through, nor replaced: an error names it")
    func saveRefusesLink() async throws {
        try await TemporaryDirectory.with { directory in
            let victim = try Self.plantLink(in: directory, content: "Root only")
            let store = ApplyStateStore(path: directory + "/state.json")
            let error = #expect(throws: ApplyError.self) { try store.save(ApplyState(cursor: "network:9")) }
            #expect(error.map { "\($0)" }?.contains("is a symbolic link (to \(victim))") == true)
            try Self.expectUntouched(directory, victim: victim, content: "Root only")
        }
    }

    @Test("an applier whose state.json is a link starts afresh, logs why, and leaves the link and its file alone")
    func interactorLeavesLink() async throws {
        try await TemporaryDirectory.with { directory in
            let fixture = try ApplyInteractorTests.Fixture(directory)
            let victim = try Self.plantLink(in: directory, content: Self.victimState)
            let recorder = LogRecorder()
            let interactor = ApplyInteractor(
                applier: FileApplier(commands: CommandRunner(), scratchDirectory: directory),
                store: ApplyStateStore(path: directory + "/state.json"),
                clock: .init { 1_800_000_000 },
                logger: recorder.logger
            )
            #expect(await interactor.cursor == nil, "the cursor of the file linked to is not taken")
            #expect(recorder.count { $0.contains("is a symbolic link (to \(victim))") } == 1)
            try await interactor.replace(targets: fixture.folder.load(root: directory + "/root"))
            await interactor.receivedAndApplied([
                ApplyInteractorTests.current("network.dns.servers", ["1.1.1.1"], cursor: "network:2"),
                ApplyInteractorTests.current("network.proxy.host", "a", cursor: "network:2"),
                ApplyInteractorTests.ready("network:2"),
            ])
            #expect(try Files.read(fixture.dns) == "DNS=1.1.1.1 r2\n", "the targets are applied all the same")
            #expect(recorder.count { $0.contains("is a symbolic link (to \(victim))") } >= 2, "each save is refused")
            try Self.expectUntouched(directory, victim: victim, content: Self.victimState)
        }
    }
}

import Foundation
import SettingsAPI
import Testing
import ViperSettings
import ViperStorage
import ViperTestSupport

/// The repository keeps a bounded number of journals open, however many modules are written: each open journal is
/// a descriptor the daemon's budget (its limit less the connections it serves) has to hold.
@Suite("JSONFileRepository open journals")
struct JSONFileRepositoryJournalLimitTests {
    let scratch = Scratch()

    /// The journals of `directory` this process has open, from /proc/self/fd.
    private func openJournals() throws -> Int {
        let entries = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        return entries.count { entry in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)")
            else { return false }
            return target.hasPrefix(self.scratch.path + "/") && target.hasSuffix(".journal")
        }
    }

    @Test("writes to 100 modules leave at most 32 journals open, and every write is kept and read back")
    func boundedOpenJournals() async throws {
        let modules = (0..<100).map { "module\($0)" }
        let repository = makeRepository(self.scratch.path)
        for round in 1...2 {
            for (index, module) in modules.enumerated() {
                _ = try await repository.update(module: module) { state in
                    LocalChange(set: ["s.k": .int(Int64(round * 1000 + index))], revision: state.revision + 1)
                }
            }
            let open = try self.openJournals()
            #expect(open <= 32, "\(open) journals open after round \(round)")
        }
        let reopened = makeRepository(self.scratch.path)
        for (index, module) in modules.enumerated() {
            #expect(
                try await reopened.state(of: module)
                    == ModuleState(revision: 2, local: ["s.k": .int(2000 + Int64(index))])
            )
        }
        withExtendedLifetime(repository) {}
    }
}

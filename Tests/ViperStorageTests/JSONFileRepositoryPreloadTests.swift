import SettingsAPI
import Testing
import ViperSettings
import ViperStorage
import ViperTestSupport

/// Loading every module at start in one go does what each module's first access would have done, once.
@Suite("JSONFileRepository preload")
struct JSONFileRepositoryPreloadTests {
    let scratch = Scratch()

    @Test("preloaded modules serve their stored values; a corrupt file is set aside and reported once, at preload")
    func preloadLoadsEveryModule() async throws {
        let modules = (0..<40).map { "module\($0)" }
        for (index, module) in modules.enumerated() {
            try Files.write(
                journalLine(revision: 1, set: ["s.k": .int(Int64(index))]),
                to: self.scratch.file("\(module).journal")
            )
        }
        try Files.write("{\"format\": 1,\n  \"module\": oops}", to: self.scratch.file("module7.json"))
        let recorder = LogRecorder()
        let repository = makeRepository(self.scratch.path, recorder: recorder)
        // A module's first access while the preload runs waits for it and gets what it loaded.
        async let during = repository.state(of: "module3")
        await repository.preload(modules: modules + ["no-files-yet", "../escape"])
        #expect(try await during == ModuleState(revision: 1, local: ["s.k": .int(3)]))
        // Loaded by the preload: the corrupt snapshot is already set aside and reported, before any access.
        #expect(Files.exists(self.scratch.file("module7.json.corrupt-\(testTimestamp)")))
        #expect(recorder.messages(at: .error).count == 1)
        for (index, module) in modules.enumerated() {
            let state = try await repository.state(of: module)
            #expect(state.local == ["s.k": .int(Int64(index))], "\(module)")
            // The module whose snapshot was set aside goes on above every revision its files named.
            #expect(state.revision == (module == "module7" ? 2 : 1), "\(module)")
        }
        #expect(try await repository.state(of: "no-files-yet") == ModuleState(revision: 0))
        #expect(recorder.messages(at: .error).count == 1, "loaded once: \(recorder.messages(at: .error))")
        // A name that is not a module's is still refused, by the access.
        await #expect(throws: StorageError.self) { try await repository.state(of: "../escape") }
        // Writes go on from the preloaded state.
        _ = try await repository.update(module: "module5") {
            LocalChange(set: ["s.k": .int(50)], revision: $0.revision + 1)
        }
        #expect(try await makeRepository(self.scratch.path).state(of: "module5").local == ["s.k": .int(50)])
    }
}

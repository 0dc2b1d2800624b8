import Foundation
import Logging
import Testing
import ViperTestSupport

@testable import ViperDaemon

/// The daemon's catalog of schemas, read from the modules directory at start and on reload.
@Suite("Module catalog")
struct ModuleCatalogTests {
    @Test("writers that name no account on this system are warned about at load, naming them; the module loads")
    func unknownWriters() async throws {
        try await TemporaryDirectory.with { directory in
            try Files.write(
                """
                {"module": "wr",
                 "writers": {"users": ["root", "viper-no-such-user", "65534"],
                             "groups": ["root", "viper-no-such-group"]},
                 "sections": [{"id": "s", "items": [{"id": "i", "type": "bool", "default": true}]}]}
                """,
                to: "\(directory)/wr.json"
            )
            let recorder = LogRecorder()
            let catalog = ModuleCatalog(accounts: SystemAccountDirectory(), logger: recorder.logger)
            let schemas = try catalog.load(directory: directory, maxValueSize: 1024)
            #expect(schemas.map(\.name) == ["wr"])
            #expect(
                recorder.messages(at: .warning) == [
                    "module 'wr' names writers this system does not know: user 'viper-no-such-user', group "
                        + "'viper-no-such-group'; these entries let no one write until the accounts exist"
                ]
            )
            // A reload with the same accounts missing says nothing more; one that misses others says so again.
            try catalog.load(directory: directory, maxValueSize: 1024)
            #expect(recorder.messages(at: .warning).count == 1, "\(recorder.messages(at: .warning))")
            try Files.write(
                """
                {"module": "wr", "writers": {"users": ["viper-no-such-user"]},
                 "sections": [{"id": "s", "items": [{"id": "i", "type": "bool", "default": true}]}]}
                """,
                to: "\(directory)/wr.json"
            )
            try catalog.load(directory: directory, maxValueSize: 1024)
            #expect(
                recorder.messages(at: .warning).last
                    == "module 'wr' names writers this system does not know: user 'viper-no-such-user'; these entries "
                    + "let no one write until the accounts exist"
            )
            #expect(recorder.messages(at: .warning).count == 2)
        }
    }

    @Test("at start, a modules directory without a schema file serves no module, with a warning naming it")
    func emptyDirectoryAtStart() async throws {
        try await TemporaryDirectory.with { directory in
            try Files.write("not a schema", to: "\(directory)/README.md")
            try Files.write("{", to: "\(directory)/.hidden.json")
            let recorder = LogRecorder()
            let catalog = ModuleCatalog(accounts: SystemAccountDirectory(), logger: recorder.logger)
            #expect(try catalog.load(directory: directory, maxValueSize: 1024).isEmpty)
            #expect(catalog.emptyDirectory == directory)
            #expect(
                recorder.messages(at: .warning) == [
                    "the modules directory \(directory) holds no schema files (*.json): no module is served"
                ]
            )
        }
    }

    @Test("a reload of a modules directory emptied while modules are served is refused: they stay served")
    func emptiedDirectoryOnReload() async throws {
        try await TemporaryDirectory.with { directory in
            let file = "\(directory)/t.json"
            try Files.write(
                #"{"module": "t", "sections": [{"id": "s", "items": [{"id": "i", "type": "bool", "default": true}]}]}"#,
                to: file
            )
            let catalog = ModuleCatalog(accounts: SystemAccountDirectory(), logger: LogRecorder().logger)
            try catalog.load(directory: directory, maxValueSize: 1024)
            #expect(catalog.emptyDirectory == nil)
            try FileManager.default.removeItem(atPath: file)
            let error = #expect(throws: ModuleCatalog.NoSchemaFiles.self) {
                try catalog.load(directory: directory, maxValueSize: 1024)
            }
            #expect(
                error?.description
                    == "the modules directory \(directory) holds no schema files (*.json): reading it would drop the 1 "
                    + "module served"
            )
            #expect(catalog.current.map(\.name) == ["t"])
            #expect(catalog.currentSources.keys.sorted() == ["t"])
            #expect(catalog.emptyDirectory == directory)
            // One that cannot be read is told apart: the status then says so, not that it is empty.
            #expect(throws: (any Error).self) {
                try catalog.load(directory: "\(directory)/nowhere", maxValueSize: 1024)
            }
            #expect(catalog.emptyDirectory == nil)
            #expect(catalog.current.map(\.name) == ["t"])
        }
    }

    @Test("a module whose file is rejected names that file only while it is not served")
    func rejectedFileOfUnservedModule() async throws {
        try await TemporaryDirectory.with { directory in
            let schema =
                #"{"module": "t", "sections": [{"id": "s", "items": [{"id": "i", "type": "bool", "default": true}]}]}"#
            try Files.write("{", to: "\(directory)/t.json")
            try Files.write(schema.replacingOccurrences(of: #""t""#, with: #""t2""#), to: "\(directory)/t2.json")
            let catalog = ModuleCatalog(accounts: SystemAccountDirectory(), logger: LogRecorder().logger)
            try catalog.load(directory: directory, maxValueSize: 1024)
            #expect(catalog.rejectedFile(ofUnservedModule: "t") == "\(directory)/t.json")
            #expect(catalog.rejectedFile(ofUnservedModule: "t2") == nil)
            #expect(catalog.rejectedFile(ofUnservedModule: "t3") == nil)
            // Served as before once it was served: the module is there, so no call names the file.
            try Files.write(schema, to: "\(directory)/t.json")
            try catalog.load(directory: directory, maxValueSize: 1024)
            try Files.write("{", to: "\(directory)/t.json")
            try catalog.load(directory: directory, maxValueSize: 1024)
            #expect(catalog.current.map(\.name) == ["t", "t2"])
            #expect(catalog.rejectedFile(ofUnservedModule: "t") == nil)
        }
    }
}

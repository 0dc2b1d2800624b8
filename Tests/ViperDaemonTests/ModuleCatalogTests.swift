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
        }
    }
}

import Logging
import SettingsAPI
import Testing
import ViperSettings

@testable import ViperStorage

/// The largest state file read for a module: 256 MiB, or more when its keys may hold more.
@Suite("ModuleLoader file limit")
struct ModuleLoaderFileLimitTests {
    static func loader(_ schema: ModuleSchema?) -> ModuleLoader {
        ModuleLoader(
            directory: StateDirectory(path: "/nonexistent"),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
            timestamp: { "20260101T000000Z" },
            schema: { _ in schema }
        )
    }

    static func module(keys: Int) throws -> ModuleSchema {
        let items: [JSONValue] = (0..<keys).map { ["id": .string("k\($0)"), "type": "string", "default": ""] }
        return try ModuleSchema(
            json: ["module": "big", "title": "Big", "sections": [["id": "s", "title": "S", "items": .array(items)]]]
        )
    }

    @Test("the bundled limits keep 256 MiB; a larger max-value-size or many large keys raise it to what they may hold")
    func limitFollowsTheSchema() throws {
        #expect(Self.loader(nil).fileLimit("any") == 256 << 20)
        let small = try Self.module(keys: 20).limitingValueSize(to: ModuleSchema.defaultMaxValueSize)
        #expect(Self.loader(small).fileLimit("big") == 256 << 20)
        // One key of up to 1 GiB: a journal batch alone may hold a few such lines.
        let large = try Self.module(keys: 1).limitingValueSize(to: 1 << 30)
        #expect(Self.loader(large).fileLimit("big") >= 4 << 30)
        // 10,000 keys of 64 KiB: their three layers and history may pass 256 MiB.
        let many = try Self.module(keys: 10_000).limitingValueSize(to: ModuleSchema.defaultMaxValueSize)
        #expect(Self.loader(many).fileLimit("big") >= 4 * 10_000 * ModuleSchema.defaultMaxValueSize)
    }
}

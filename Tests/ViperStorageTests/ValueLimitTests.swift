import Foundation
import SettingsAPI
import Testing
import ViperSettings
import ViperStorage
import ViperTestSupport

/// Values are bounded: by the schema's `maxLength` and `maxItems`, and by the daemon-wide `max-value-size`.
@Suite("Value size limits")
struct ValueLimitTests {
    let scratch = Scratch()

    func load(maxValueSize: Int = ModuleSchema.defaultMaxValueSize) throws -> ModuleSchema {
        try Files.write(
            """
            {"module": "updates", "sections": [{"id": "channel", "items": [
              {"id": "name", "type": "string", "default": ""},
              {"id": "mirrors", "type": "strings", "maxItems": 3, "maxLength": 10, "default": []},
              {"id": "tags", "type": "strings", "default": []}]}]}
            """,
            to: self.scratch.file("updates.json")
        )
        let catalog = try ModuleCatalogLoader(directory: self.scratch.path, maxValueSize: maxValueSize).load()
        #expect(catalog.errors.isEmpty)
        return try #require(catalog.schemas.first)
    }

    @Test("a strings value over maxItems, or with an item over maxLength, is rejected with a reason naming the limit")
    func schemaLimits() throws {
        let type = try #require(try self.load().item(at: "channel.mirrors")?.type)
        #expect(try type.value(fromJSON: ["a", "b", "c"]) == .strings(["a", "b", "c"]))
        #expect(throws: ValueRejection("must have at most 3 items, has 4")) {
            try type.value(fromJSON: ["a", "b", "c", "d"])
        }
        #expect(throws: ValueRejection("item 2 must be at most 10 characters, has 11")) {
            try type.value(fromJSON: ["a", "bbbbbbbbbbb"])
        }
        #expect(throws: ValueRejection.self) { try type.value(fromText: "a,b,c,d") }
        #expect(SettingsFormatter.constraint(type) == "a list of strings, at most 3 items, each at most 10 characters")
    }

    @Test("a value over max-value-size is rejected, for string and strings alike; 64 KiB by default")
    func daemonWideLimit() throws {
        let schema = try self.load()
        let name = try #require(schema.item(at: "channel.name")?.type)
        let tags = try #require(schema.item(at: "channel.tags")?.type)
        let limit = ModuleSchema.defaultMaxValueSize
        #expect(
            try name.value(fromText: String(repeating: "a", count: limit))
                == .string(String(repeating: "a", count: limit))
        )
        #expect(throws: ValueRejection("is 65537 bytes long, more than the limit of 65536 bytes (max-value-size)")) {
            try name.value(fromText: String(repeating: "a", count: limit + 1))
        }
        let many = JSONValue.array(Array(repeating: .string(String(repeating: "b", count: 1000)), count: 66))
        #expect(throws: ValueRejection("is 66066 bytes long, more than the limit of 65536 bytes (max-value-size)")) {
            try tags.value(fromJSON: many)
        }
        // Each item counts a byte more than its text: a list of empty strings is bounded too.
        let empties = JSONValue.array(Array(repeating: .string(""), count: 100_000))
        #expect(throws: ValueRejection("is 100000 bytes long, more than the limit of 65536 bytes (max-value-size)")) {
            try tags.value(fromJSON: empties)
        }
        #expect(
            try tags.value(fromJSON: .array(Array(repeating: .string(""), count: 1000)))
                == .strings(Array(repeating: "", count: 1000))
        )
        let small = try #require(try self.load(maxValueSize: 8).item(at: "channel.name")?.type)
        #expect(throws: ValueRejection.self) { try small.value(fromText: "ünïcödé") }
    }

    @Test("a long value is cut in a log line, which says so")
    func logText() throws {
        let value = SettingValue.string(String(repeating: "é", count: 1000))
        let text = value.logText()
        #expect(text.utf8.count < 600)
        #expect(text.hasSuffix("… (truncated, 2002 bytes)"))
        #expect(SettingValue.int(8080).logText() == "8080")
        // What would make a log line read backwards on a terminal is escaped, the value the same JSON.
        let spoof = SettingValue.strings(["stable", "\u{2066}beta\u{202E}", "\u{FEFF}x"])
        #expect(spoof.logText() == #"["stable","\u2066beta\u202e","\ufeffx"]"#)
        #expect(try JSONValue(parsing: spoof.logText()) == spoof.json)
    }
}

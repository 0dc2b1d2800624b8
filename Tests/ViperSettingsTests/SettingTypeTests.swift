import SettingsAPI
import Testing
import ViperSettings

@Suite("Setting types")
struct SettingTypeTests {
    @Test("a port above the range is rejected with the allowed range")
    func rejectsOutOfRange() {
        #expect(throws: ValueRejection("must be within 1..65535")) {
            try SettingType.int(range: 1...65535).value(fromText: "70000")
        }
    }

    @Test("text is read by the type")
    func readsText() throws {
        #expect(try SettingType.int(range: nil).value(fromText: "8080") == .int(8080))
        #expect(try SettingType.bool.value(fromText: "yes") == .bool(true))
        #expect(try SettingType.double(range: 0.5...4).value(fromText: "1.25") == .double(1.25))
        #expect(try SettingType.strings().value(fromText: "stable,beta") == .strings(["stable", "beta"]))
        #expect(try SettingType.strings().value(fromText: "[\"a, b\",\"c\"]") == .strings(["a, b", "c"]))
        #expect(try SettingType.strings().value(fromText: "") == .strings([]))
    }

    @Test("garbage text is rejected with what was expected")
    func rejectsGarbage() {
        #expect(throws: ValueRejection("expected a whole number")) {
            try SettingType.int(range: nil).value(fromText: "12abc")
        }
        #expect(throws: ValueRejection("expected true or false")) { try SettingType.bool.value(fromText: "maybe") }
    }

    @Test("choices, patterns and lengths are enforced")
    func stringConstraints() throws {
        let choice = SettingType.string(choices: ["a", "b"], pattern: nil, maxLength: nil)
        #expect(throws: ValueRejection("must be one of a, b")) { try choice.value(fromText: "c") }
        let time = SettingType.string(choices: nil, pattern: "^[0-2][0-9]:[0-5][0-9]$", maxLength: 5)
        #expect(try time.value(fromText: "03:00") == .string("03:00"))
        #expect(throws: ValueRejection("must match the pattern ^[0-2][0-9]:[0-5][0-9]$")) {
            try time.value(fromText: "3 am")
        }
    }

    @Test("typed JSON: integers are accepted for doubles, strings are not for ints")
    func typedJSON() throws {
        #expect(try SettingType.double(range: nil).value(fromJSON: 2) == .double(2))
        #expect(throws: ValueRejection("expected an integer, found string")) {
            try SettingType.int(range: nil).value(fromJSON: "8080")
        }
        #expect(throws: ValueRejection("expected a list of strings, found a integer in the list")) {
            try SettingType.strings().value(fromJSON: ["a", 1])
        }
    }

    @Test("keys have exactly three parts")
    func keys() {
        #expect(SettingKey("network.proxy.port")?.path == "proxy.port")
        #expect(SettingKey("network.proxy") == nil)
        #expect(SettingKey("network..port") == nil)
    }
}

@Suite("Setting types: control characters")
struct ControlCharacterTests {
    @Test("strings with control characters are rejected, so they cannot forge log lines or break scripts")
    func controlCharacters() {
        let string = SettingType.string(choices: nil, pattern: nil, maxLength: nil)
        #expect(throws: ValueRejection("must not contain control characters (such as newlines)")) {
            try string.value(fromText: "x\nFAKE critical: injected")
        }
        #expect(throws: ValueRejection.self) { try string.value(fromJSON: "a\u{0}b") }
        #expect(throws: ValueRejection.self) { try SettingType.strings().value(fromJSON: ["ok", "tab\there"]) }
        #expect((try? string.value(fromText: "ünïcødé ok")) == .string("ünïcødé ok"))
    }
}

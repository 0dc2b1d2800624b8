import SettingsAPI
import Testing
import ViperSettings

/// A schema that says something its loader would not act on is rejected: a misspelt key, a constraint its item's
/// type does not take, a choice or a default the item could never store, an id too long for a file name.
@Suite("Schema consistency")
struct SchemaConsistencyTests {
    /// A module `m` with one section `s` holding `item` (JSON text).
    static func module(item: String) -> String {
        #"{"module": "m", "sections": [{"id": "s", "items": [\#(item)]}]}"#
    }

    /// The error loading the schema `text`, or `nil` when it loads.
    static func error(_ text: String) throws -> SchemaError? {
        let json = try JSONValue(parsing: text)
        do {
            _ = try ModuleSchema(json: json)
            return nil
        } catch {
            return error
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var schema: String
        var path: String
        var reason: String
        var testDescription: String { self.path }
    }

    static let unknownKeys: [Case] = [
        Case(
            schema: module(item: #"{"id": "i", "type": "int", "rnage": [1, 2], "default": 1}"#),
            path: "$.sections[0].items[0].rnage",
            reason: "unknown key 'rnage'; an int item takes default, id, range, summary, title, type"
        ),
        Case(
            schema: #"{"module": "m", "colour": "red", "sections": [{"id": "s", "items": []}]}"#,
            path: "$.colour",
            reason: "unknown key 'colour'; a module takes description, module, sections, title, writers"
        ),
        Case(
            schema: #"{"module": "m", "writers": {"group": ["nogroup"]}, "sections": [{"id": "s", "items": []}]}"#,
            path: "$.writers.group",
            reason: "unknown key 'group'; writers takes groups, users"
        ),
        Case(
            schema: #"{"module": "m", "sections": [{"id": "s", "summary": "x", "items": []}]}"#,
            path: "$.sections[0].summary",
            reason: "unknown key 'summary'; a section takes id, items, title"
        ),
        Case(
            schema: module(item: #"{"id": "i", "type": "string", "Default": "a", "default": "a"}"#),
            path: "$.sections[0].items[0].Default",
            reason: "unknown key 'Default'; a string item takes choices, default, id, maxLength, pattern, summary, "
                + "title, type"
        ),
        Case(
            schema: module(item: #"{"id": "i", "type": "bool", "default": true, "a\nb": 1}"#),
            path: #"$.sections[0].items[0]["a\nb"]"#,
            reason: #"unknown key "a\nb"; a bool item takes default, id, summary, title, type"#
        ),
    ]

    @Test("an unknown key is rejected at every level, naming it and the keys allowed there", arguments: unknownKeys)
    func unknownKey(_ example: Case) throws {
        let error = try #require(try Self.error(example.schema))
        #expect(error.path == example.path)
        #expect(error.reason == example.reason)
    }

    @Test(
        "a null constraint or text is refused, not taken for left out (it would drop the constraint unseen)",
        arguments: [
            (#""pattern": null"#, "pattern", "string"), (#""range": null"#, "range", "int"),
            (#""choices": null"#, "choices", "string"), (#""maxLength": null"#, "maxLength", "string"),
            (#""title": null"#, "title", "int"), (#""summary": null"#, "summary", "bool"),
        ]
    )
    func nullMember(member: String, key: String, type: String) throws {
        let value = type == "bool" ? "true" : type == "int" ? "1" : #""a""#
        let item = #"{"id": "i", "type": "\#(type)", "default": \#(value), \#(member)}"#
        let error = try #require(try Self.error(Self.module(item: item)))
        #expect(error.path == "$.sections[0].items[0].\(key)")
        #expect(error.reason == "null: leave the key out for none")
        let writers = #"{"module": "m", "writers": null, "description": null, "sections": [{"id": "s", "items": []}]}"#
        #expect(try Self.error(writers)?.reason == "null: leave the key out for none")
        // A key that is required is not told to be left out.
        let type = try #require(try Self.error(Self.module(item: #"{"id": "i", "type": null, "default": 1}"#)))
        #expect(type.path == "$.sections[0].items[0].type" && type.reason == "expected a string, found null")
    }

    static let types = ["bool", "int", "double", "string", "strings"]
    static let constraints = ["choices", "maxItems", "maxLength", "pattern", "range"]

    @Test(
        "every constraint is checked against every type: one the type does not take is rejected, naming the types that do",
        arguments: types,
        constraints
    )
    func constraintForType(type: String, constraint: String) throws {
        let defaults = ["bool": "false", "int": "1", "double": "1.5", "string": #""a""#, "strings": #"["a"]"#]
        let values = [
            "choices": #"["a"]"#, "maxItems": "2", "maxLength": "3", "pattern": #""a""#, "range": "[0, 10]",
        ]
        let takers = [
            "choices": ["string"], "maxItems": ["strings"], "maxLength": ["string", "strings"],
            "pattern": ["string", "strings"], "range": ["int", "double"],
        ]
        let item =
            #"{"id": "i", "type": "\#(type)", "\#(constraint)": \#(values[constraint]!), "default": "#
            + #"\#(defaults[type]!)}"#
        let error = try Self.error(Self.module(item: item))
        let types = takers[constraint]!
        if types.contains(type) {
            #expect(error == nil)
        } else {
            #expect(error?.path == "$.sections[0].items[0].\(constraint)")
            #expect(
                error?.reason == "'\(constraint)' applies to \(types.joined(separator: " and ")) items, not \(type)"
            )
        }
    }

    static let impossibleChoices: [Case] = [
        Case(
            schema: module(
                item: #"{"id": "i", "type": "string", "choices": ["12", "abc"], "pattern": "[0-9]+", "default": "12"}"#
            ),
            path: "$.sections[0].items[0].choices[1]",
            reason: #"choice "abc" must match the pattern [0-9]+"#
        ),
        Case(
            schema: module(
                item: #"{"id": "i", "type": "string", "choices": ["abcdef"], "maxLength": 3, "default": "abcdef"}"#
            ),
            path: "$.sections[0].items[0].choices[0]",
            reason: #"choice "abcdef" must be at most 3 characters, has 6"#
        ),
        Case(
            schema: module(item: #"{"id": "i", "type": "string", "choices": ["a", "b\tc"], "default": "a"}"#),
            path: "$.sections[0].items[0].choices[1]",
            reason: #"choice "b\tc" must not contain control characters (such as newlines)"#
        ),
        Case(
            schema: module(item: #"{"id": "i", "type": "string", "choices": ["a", "b", "a"], "default": "a"}"#),
            path: "$.sections[0].items[0].choices[2]",
            reason: #"choice "a" is given twice (first at $.sections[0].items[0].choices[0])"#
        ),
    ]

    @Test("a choice the item could never store is rejected, as a default would be", arguments: impossibleChoices)
    func impossibleChoice(_ example: Case) throws {
        let error = try #require(try Self.error(example.schema))
        #expect(error.path == example.path)
        #expect(error.reason == example.reason)
    }

    @Test("an int default written 2.0 is refused, as a stored or set 2.0 is; one beyond 64 bits says so")
    func integerDefault() throws {
        let written = try #require(try Self.error(Self.module(item: #"{"id": "i", "type": "int", "default": 2.0}"#)))
        #expect(written.path == "$.sections[0].items[0].default")
        #expect(
            written.reason
                == "default 2.0 is not an integer (write 2: an int takes no '.' or exponent, in a schema as in a "
                + "stored or set value)"
        )
        // The same value stored, or typed on a command line, is refused too.
        let stored = try #require(SettingValue(stored: 2.0))
        #expect(throws: ValueRejection.self) { try SettingType.int(range: nil).checked(stored) }
        #expect(throws: ValueRejection.self) { try SettingType.int(range: nil).value(fromText: "2.0") }

        let huge = try #require(
            try Self.error(Self.module(item: #"{"id": "i", "type": "int", "default": 99999999999999999999}"#))
        )
        #expect(
            huge.reason
                == "default 100000000000000000000 does not fit a 64-bit integer (-9223372036854775808..9223372036854775807)"
        )
        #expect(try Self.error(Self.module(item: #"{"id": "i", "type": "double", "default": 2}"#)) == nil)
    }

    @Test("an int range bound beyond 64 bits is named as such, not as a range of the wrong shape")
    func rangeBeyond64Bits() throws {
        let item = #"{"id": "i", "type": "int", "range": [0, 99999999999999999999], "default": 1}"#
        let error = try #require(try Self.error(Self.module(item: item)))
        #expect(error.path == "$.sections[0].items[0].range[1]")
        #expect(
            error.reason
                == "100000000000000000000 does not fit a 64-bit integer (-9223372036854775808..9223372036854775807)"
        )
        // Just below -2^63: read as -2^63 itself, and told why that does not fit either.
        let below = #"{"id": "i", "type": "int", "range": [-9223372036854775809, 0], "default": 0}"#
        let low = try #require(try Self.error(Self.module(item: below)))
        #expect(low.path == "$.sections[0].items[0].range[0]")
        #expect(low.reason.hasPrefix("-9223372036854775808 does not fit a 64-bit integer"), "\(low.reason)")
        #expect(low.reason.contains("a JSON integer beyond 64 bits is read as a double"), "\(low.reason)")
        let reversed = try #require(
            try Self.error(Self.module(item: #"{"id": "i", "type": "int", "range": [5, 1], "default": 1}"#))
        )
        #expect(reversed.path == "$.sections[0].items[0].range")
        #expect(reversed.reason == "expected [min, max] with min <= max, found min 5 > max 1")
    }

    @Test("ids are at most 128 characters: a longer module, section or item id is rejected, naming its length")
    func idLength() throws {
        let longest = "m" + String(repeating: "x", count: ModuleSchema.maximumIDLength - 1)
        #expect(ModuleSchema.maximumIDLength == 128)
        let fits =
            #"{"module": "\#(longest)", "sections": [{"id": "\#(longest)", "items": ["#
            + #"{"id": "\#(longest)", "type": "bool", "default": true}]}]}"#
        #expect(try Self.error(fits) == nil)

        let module = "m" + String(repeating: "x", count: 249)
        let tooLong = try #require(
            try Self.error(#"{"module": "\#(module)", "sections": [{"id": "s", "items": []}]}"#)
        )
        #expect(tooLong.path == "$.module")
        #expect(
            tooLong.reason
                == "the id is 250 characters long, more than the 128 allowed (state files are named after the module, "
                + "and a file name has at most 255 bytes)"
        )
        let section = try #require(
            try Self.error(#"{"module": "m", "sections": [{"id": "\#(longest)y", "items": []}]}"#)
        )
        #expect(section.path == "$.sections[0].id")
        let item = try #require(
            try Self.error(Self.module(item: #"{"id": "\#(longest)y", "type": "bool", "default": true}"#))
        )
        #expect(item.path == "$.sections[0].items[0].id")
        #expect(item.reason.hasPrefix("the id is 129 characters long"))
    }
}

import SettingsAPI
import Testing

@Suite("JSON values")
struct JSONValueTests {
    @Test("parses every kind of value")
    func parsesValues() throws {
        let value = try JSONValue(
            parsing: #" {"a": [1, -2.5, 1e3, true, false, null], "b": "x\ny\u00e9\ud83d\ude00"} "#
        )
        #expect(value["a"] == [1, -2.5, 1000.0, true, false, nil])
        #expect(value["b"] == "x\nyé😀")
    }

    @Test("writes compact JSON with sorted keys that parses back to the same value")
    func roundTrips() throws {
        let value: JSONValue = ["z": 1, "a": ["s\"q\\\u{1}", 0.1, -9_223_372_036_854_775_808], "m": [:], "e": []]
        let text = value.serialized()
        #expect(text == #"{"a":["s\"q\\\u0001",0.1,-9223372036854775808],"e":[],"m":{},"z":1}"#)
        #expect(try JSONValue(parsing: text) == value)
        #expect(try JSONValue(parsing: value.prettyPrinted()) == value)
    }

    @Test(
        "the invisible characters that reorder text are written as escapes, other text as it is; the value is the same"
    )
    func escapesInvisibleCharacters() throws {
        let value: JSONValue = ["k\u{202E}": "old\u{202E} -> new\u{200F}\u{2066}\u{FEFF} \u{20AC} \u{E9} \u{1F600}"]
        let text = value.serialized()
        #expect(text == #"{"k\u202e":"old\u202e -> new\u200f\u2066\ufeff € é 😀"}"#)
        #expect(try JSONValue(parsing: text) == value)
        #expect(JSONValue.string("€ plain").serialized() == #""€ plain""#)
        // The Arabic letter mark is one of them; Arabic text is not.
        let arabic: JSONValue = "A\u{061C}B \u{0627}\u{0644}"
        #expect(arabic.serialized() == "\"A\\u061cB \u{0627}\u{0644}\"")
        #expect(try JSONValue(parsing: arabic.serialized()) == arabic)
    }

    @Test("values are equal only when exactly the same: a string's bytes, a double's bits; hashes agree")
    func exactEquality() throws {
        let composed: JSONValue = "caf\u{E9}"
        let decomposed: JSONValue = "cafe\u{301}"
        #expect(composed != decomposed && [composed] != [decomposed] as JSONValue)
        #expect(["k": composed] != ["k": decomposed] as JSONValue)
        #expect(JSONValue.double(0.0) != .double(-0.0) && JSONValue.int(1) != .double(1.0))
        #expect(try JSONValue(parsing: "-0.0") == .double(-0.0) && JSONValue.double(-0.0).serialized() == "-0.0")
        let object: JSONValue = ["a": 1, "b": [composed, 2.5]]
        let reparsed = try JSONValue(parsing: object.serialized())
        #expect(
            object == ["b": [composed, 2.5], "a": 1] && reparsed == object && reparsed.hashValue == object.hashValue
        )
        #expect(Set<JSONValue>([composed, decomposed, .double(0.0), .double(-0.0), object, object]).count == 5)
    }

    @Test("indents nested objects with their keys sorted at every level")
    func prettyPrintsNestedObjects() {
        let value: JSONValue = ["b": ["y": 1, "x": [:]], "a": [true]]
        #expect(
            value.prettyPrinted() == "{\n  \"a\": [\n    true\n  ],\n  \"b\": {\n    \"x\": {},\n    \"y\": 1\n  }\n}"
        )
    }

    @Test(
        "rejects malformed text with line and column",
        arguments: [
            ("{\"a\": }", 1, 7), ("[1,]", 1, 4), ("{\"a\" 1}", 1, 6), ("\"abc", 1, 5), ("01", 1, 2),
            ("[1]\n x", 2, 2), ("", 1, 1), ("{'a': 1}", 1, 2), ("tru", 1, 1), ("\"\\x\"", 1, 3),
        ]
    )
    func rejectsMalformed(text: String, line: Int, column: Int) {
        let error = #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
        #expect(error?.line == line)
        #expect(error?.column == column)
    }

    @Test("rejects nesting deeper than the limit instead of overflowing the stack")
    func deepNesting() {
        let text = String(repeating: "[", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
    }

    @Test(
        "writes integers as Swift spells them, the extremes included",
        arguments: [0, 7, -7, 10, -10, 65535, 1_000_000_007, Int64.max, Int64.min, Int64.max - 1, Int64.min + 1]
    )
    func writesIntegers(value: Int64) throws {
        #expect(JSONValue.int(value).serialized() == String(value))
        #expect(try JSONValue(parsing: JSONValue.int(value).serialized()) == .int(value))
    }

    @Test("integers too large for 64 bits become doubles")
    func bigIntegers() throws {
        #expect(try JSONValue(parsing: "9223372036854775808") == .double(9_223_372_036_854_775_808))
    }

    @Test("ViewModels round-trip through their wire form")
    func viewModelRoundTrip() throws {
        let item = ItemViewModel(
            key: "network.proxy.port",
            id: "port",
            title: "Port",
            summary: "",
            type: "int",
            value: 8080,
            display: "8080",
            layer: .local,
            modified: true,
            locked: false,
            defaultValue: 3128,
            defaultDisplay: "3128",
            constraint: "1..65535"
        )
        let module = ModuleViewModel(
            module: "network",
            title: "Network",
            description: "",
            revision: 3,
            sections: [SectionViewModel(id: "proxy", title: "Proxy", items: [item])]
        )
        #expect(
            try JSONValueDecoder().decode(
                ModuleViewModel.self,
                from: JSONValue(parsing: JSONValueEncoder().encode(module).serialized())
            ) == module
        )
        let explain = ExplainViewModel(
            item: item,
            layers: [
                LayerValueViewModel(layer: .recommended, present: false, value: nil, display: nil, source: "remote")
            ],
            winner: .local,
            revision: 3
        )
        #expect(
            try JSONValueDecoder().decode(ExplainViewModel.self, from: JSONValueEncoder().encode(explain)) == explain
        )
    }

    @Test("a ViewModel with a missing field names it")
    func missingField() {
        #expect(throws: JSONDecodingError(field: "modules[0].keys", reason: "missing")) {
            try JSONValueDecoder().decode(
                ModuleListViewModel.self,
                from: ["modules": [["module": "a", "title": "A", "description": ""]]]
            )
        }
    }

    @Test("the IDL is embedded and declares the interface and its errors")
    func idl() {
        let idl = SettingsMethod.interfaceDescription
        #expect(idl.hasPrefix("# "))
        #expect(idl.contains("interface io.viper.settings\n"))
        for method in SettingsMethod.allCases { #expect(idl.contains("method \(method.rawValue)(")) }
        for name in ["NoSuchModule", "NoSuchKey", "InvalidValue", "KeyLocked", "PermissionDenied"] {
            #expect(idl.contains("error \(name) ("))
        }
    }
}

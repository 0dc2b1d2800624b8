import SettingsAPI
import Testing

@Suite("JSON parser edge cases")
struct JSONParserTests {
    static func nested(_ depth: Int) -> String {
        String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    }

    static func nestedObjects(_ depth: Int) -> String {
        String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
    }

    @Test("reads ASCII and other UTF-8 strings, and refuses bytes that are not UTF-8")
    func utf8Strings() throws {
        #expect(try JSONValue(parsing: Array(#"["plain", "é😀", "a\"b"]"#.utf8)) == ["plain", "é😀", "a\"b"])
        for bad: [UInt8] in [[0xFF], [0x61, 0xC3], [0xED, 0xA0, 0x80]] {
            let text = Array(#"{"key": ""#.utf8) + bad + Array(#""}"#.utf8)
            let error = #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
            #expect(error?.reason == "string is not valid UTF-8")
        }
    }

    static let unexpected: [(text: String, reason: String)] = [
        ("\u{FEFF}{}", "expected a value, found a byte order mark (U+FEFF): save the file without it"),
        ("x{}", "expected a value, found 'x'"),
        ("{} z", "unexpected text after the JSON value, found 'z'"),
        (#"{"a": 1 2}"#, "expected ',' or '}' after an object member, found '2'"),
        ("[1 ;]", "expected ',' or ']' after an array element, found ';'"),
        ("{1: 2}", "expected a string as object key, found '1'"),
        (#"{"a" 2}"#, "expected ':' after object key \"a\", found '2'"),
        ("[\u{01}]", "expected a value, found U+0001"),
        ("[é]", "expected a value, found 'é' (U+00E9)"),
        ("[\u{202E}]", "expected a value, found U+202E"),
        ("{", "expected a string as object key, found the end of the input"),
    ]

    @Test("an unexpected character is named, an invisible one by its code point, a byte order mark as such")
    func unexpectedCharacterNamed() {
        for (text, reason) in Self.unexpected {
            let error = #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
            #expect(error?.reason == reason, "\(text.unicodeScalars.map { $0.value })")
        }
        let error = #expect(throws: JSONParseError.self) { try JSONValue(parsing: [0x5B, 0xFF, 0x5D] as [UInt8]) }
        #expect(error?.reason == "expected a value, found the byte 0xFF, which is not UTF-8")
    }

    @Test("accepts arrays and objects nested exactly 128 deep")
    func depthAtLimit() throws {
        #expect(JSONValue.maximumDepth == 128)
        var value = try JSONValue(parsing: Self.nested(128))
        var depth = 0
        while case .array(let elements) = value {
            depth += 1
            value = elements.first ?? .null
        }
        #expect(depth == 128)
        #expect(try JSONValue(parsing: Self.nestedObjects(128)) != .null)
    }

    @Test("an error's line counts LF, CR LF and CR alone as one line end each")
    func lineEnds() {
        for (text, line, column) in [
            ("{\n\"a\": 1,\n x}", 3, 2), ("{\r\n\"a\": 1,\r\n x}", 3, 2), ("{\r\"a\": 1,\r x}", 3, 2),
            ("{\r\r\n\n x}", 4, 2),
        ] {
            let error = #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
            #expect(
                error?.line == line && error?.column == column,
                "\(text.debugDescription): \(String(describing: error))"
            )
        }
    }

    @Test("rejects nesting 129 deep, naming the limit and where")
    func depthPastLimit() {
        for text in [Self.nested(129), Self.nestedObjects(129)] {
            let error = #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
            #expect(error?.reason == "nesting deeper than 128")
            #expect(error?.line == 1)
        }
    }

    @Test(
        "rejects an object with a key twice, naming the key",
        arguments: [
            (#"{"method": "a.B", "method": "a.C"}"#, "method", 19),
            (#"{"x": {"k": 1, "k": 1}}"#, "k", 16),
            (#"{"\u0061": 1, "a": 2}"#, "a", 15),
        ]
    )
    func duplicateKeys(text: String, key: String, column: Int) {
        let error = #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
        #expect(error?.reason == "duplicate key \"\(key)\" in an object")
        #expect(error?.line == 1)
        #expect(error?.column == column)
    }

    @Test("a key repeated in an error is escaped and cut: a newline in it cannot forge a log line")
    func duplicateKeyQuoted() {
        let forged = "x\n2026-11-26T00:00:00+0000 critical viper-settingsd: FAKE" + String(repeating: "y", count: 5000)
        let member = JSONValue.string(forged).serialized()
        let error = #expect(throws: JSONParseError.self) {
            try JSONValue(parsing: "{\(member): 1, \(member): 2}")
        }
        let reason = error?.reason ?? ""
        #expect(!reason.contains("\n"))
        #expect(reason.hasPrefix(#"duplicate key "x\n2026-11-26T00:00:00+0000 critical viper-settingsd: FAKEyyy"#))
        #expect(reason.contains("… (5057 bytes) in an object"))
        #expect(reason.utf8.count < 200)
    }

    @Test("quoted peer text escapes every control character, C1 and DEL included, and says how long a cut one was")
    func quotedText() {
        #expect(QuotedText.quote("a\"b\\c") == #""a\"b\\c""#)
        #expect(QuotedText.quote("\u{1B}[2J\u{9B}31m\u{7F}\u{2028}\r\t") == #""\u001b[2J\u009b31m\u007f\u2028\r\t""#)
        #expect(QuotedText.quote("é€😀") == "\"é€😀\"")
        #expect(QuotedText.quote(String(repeating: "z", count: 150), limit: 3) == #""zzz"… (150 bytes)"#)
    }

    @Test("keys that differ only in case or in later members are distinct")
    func distinctKeys() throws {
        #expect(try JSONValue(parsing: #"{"a": 1, "A": 2, "b": {"a": 3}}"#) == ["a": 1, "A": 2, "b": ["a": 3]])
    }

    @Test(
        "rejects a lone UTF-16 surrogate in a \\u escape",
        arguments: [#""\ud800""#, #""\udc00""#, #""x\ud83dy""#, #""\ud83d\u0041""#, #""\ude00\ud83d""#]
    )
    func loneSurrogates(text: String) {
        let error = #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
        #expect(error?.reason == "unpaired UTF-16 surrogate in \\u escape")
    }

    @Test("a surrogate pair is one character")
    func surrogatePair() throws {
        #expect(try JSONValue(parsing: #""\ud83d\ude00""#) == "😀")
    }

    @Test(
        "rejects numbers too large for a finite double",
        arguments: ["1e400", "-1e400", "[1.5e309]", "1" + String(repeating: "0", count: 400)]
    )
    func hugeNumbers(text: String) {
        let error = #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
        #expect(error?.reason.hasPrefix("number out of range") == true)
    }

    @Test(
        "a number too small for a double is refused, not stored as zero",
        arguments: ["1e-400", "-2.5e-400", "[1e-325]"]
    )
    func tinyNumbers(text: String) {
        let error = #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
        #expect(error?.reason.contains("too small for a 64-bit floating-point number") == true)
    }

    @Test("zero in any spelling, and the smallest doubles, are numbers")
    func zerosAndSubnormals() throws {
        #expect(try JSONValue(parsing: "0e-400") == .double(0))
        #expect(try JSONValue(parsing: "0.000e5") == .double(0))
        #expect(try JSONValue(parsing: "-0.0") == .double(-0.0))
        #expect(try JSONValue(parsing: "4.9e-324") == .double(.leastNonzeroMagnitude))
    }

    @Test("integers past Int64 become doubles; Int64's own bounds stay integers")
    func integersPastInt64() throws {
        #expect(try JSONValue(parsing: "9223372036854775807") == .int(.max))
        #expect(try JSONValue(parsing: "-9223372036854775808") == .int(.min))
        #expect(try JSONValue(parsing: "9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try JSONValue(parsing: "-9223372036854775809") == .double(-9_223_372_036_854_775_808.0))
        #expect(try JSONValue(parsing: "123456789012345678901234567890") == .double(1.2345678901234568e29))
        #expect(try JSONValue(parsing: "9223372036854775808")["x"] == nil)
        #expect(try JSONValue(parsing: "9223372036854775808").intValue == nil)
    }
}

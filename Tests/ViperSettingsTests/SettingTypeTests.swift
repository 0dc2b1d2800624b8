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
        #expect(throws: ValueRejection("expected true or false (also yes/no, on/off, 1/0)")) {
            try SettingType.bool.value(fromText: "maybe")
        }
    }

    @Test("numbers are read in decimal only, for an int as for a double")
    func decimalNumbers() throws {
        let double = SettingType.double(range: nil)
        for text in ["0x1p1", "0x2", "inf", "-infinity", "nan", "1_0", "1,5"] {
            #expect(throws: ValueRejection("expected a number"), "\(text)") { try double.value(fromText: text) }
        }
        for text in ["0x50", "0b1", "1e2x"] {
            #expect(throws: ValueRejection("expected a whole number"), "\(text)") {
                try SettingType.int(range: nil).value(fromText: text)
            }
        }
        #expect(try double.value(fromText: "-1.5e2") == .double(-150))
        #expect(try double.value(fromText: "+.5") == .double(0.5))
        #expect(throws: ValueRejection("is beyond the range of a 64-bit floating-point number (about ±1.8e308)")) {
            try double.value(fromText: "1e400")
        }
    }

    @Test("blanks around a bool, an int, a double or a word of a list are ignored, not around a string")
    func blanks() throws {
        #expect(try SettingType.bool.value(fromText: " true ") == .bool(true))
        #expect(try SettingType.bool.value(fromText: "\tOff") == .bool(false))
        #expect(try SettingType.int(range: nil).value(fromText: " 80 ") == .int(80))
        #expect(try SettingType.double(range: nil).value(fromText: " 1.25\t") == .double(1.25))
        #expect(try SettingType.strings().value(fromText: " a , b ") == .strings(["a", "b"]))
        let string = SettingType.string(choices: nil, pattern: nil, maxLength: nil)
        #expect(try string.value(fromText: " a ") == .string(" a "))
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

    @Test("values are equal only when exactly the same: a string's bytes, a double's bits; hashes agree")
    func exactEquality() {
        let composed = SettingValue.string("caf\u{E9}")
        let decomposed = SettingValue.string("cafe\u{301}")
        #expect(composed != decomposed)
        #expect(SettingValue.strings(["caf\u{E9}"]) != .strings(["cafe\u{301}"]))
        #expect(SettingValue.double(0.0) != .double(-0.0))
        #expect(SettingValue.double(-0.0) == .double(-0.0) && composed == .string("caf\u{E9}"))
        #expect(SettingValue.strings(["a", "bc"]) != .strings(["ab", "c"]))
        #expect(Set<SettingValue>([composed, decomposed, .double(0.0), .double(-0.0), .double(-0.0)]).count == 4)
        #expect(composed.hashValue == SettingValue.string("caf\u{E9}").hashValue)
    }

    @Test("a choice is matched exactly: another Unicode spelling of one is not it")
    func choiceExactly() throws {
        let choice = SettingType.string(choices: ["caf\u{E9}"], pattern: nil, maxLength: nil)
        #expect(try choice.value(fromText: "caf\u{E9}") == .string("caf\u{E9}"))
        #expect(throws: ValueRejection("must be one of caf\u{E9}")) { try choice.value(fromText: "cafe\u{301}") }
    }

    @Test("typed JSON: integers are accepted for doubles, strings are not for ints")
    func typedJSON() throws {
        #expect(try SettingType.double(range: nil).value(fromJSON: 2) == .double(2))
        #expect(throws: ValueRejection("expected an integer, found a string")) {
            try SettingType.int(range: nil).value(fromJSON: "8080")
        }
        #expect(throws: ValueRejection("expected a boolean, found a string")) {
            try SettingType.bool.value(fromJSON: "true")
        }
        #expect(throws: ValueRejection("expected an integer, found null")) {
            try SettingType.int(range: nil).value(fromJSON: nil)
        }
        #expect(throws: ValueRejection("expected a list of strings, found an integer in the list")) {
            try SettingType.strings().value(fromJSON: ["a", 1])
        }
        #expect(throws: ValueRejection("expected a list of strings, found a boolean in the list")) {
            try SettingType.strings().value(fromJSON: ["a", true])
        }
    }

    @Test("a whole number beyond 64 bits is out of range, not garbage")
    func wholeNumberOutOfRange() {
        #expect(
            throws: ValueRejection("is beyond the 64-bit integer range (-9223372036854775808..9223372036854775807)")
        ) {
            try SettingType.int(range: nil).value(fromText: "9223372036854775808")
        }
        #expect(throws: ValueRejection("is beyond the 64-bit integer range; must be within 1..65535")) {
            try SettingType.int(range: 1...65535).value(fromText: "-99999999999999999999")
        }
        #expect(throws: ValueRejection("expected a whole number")) {
            try SettingType.int(range: nil).value(fromText: "-")
        }
        #expect(throws: ValueRejection("is beyond the range of a 64-bit floating-point number (about ±1.8e308)")) {
            try SettingType.double(range: nil).value(fromText: "1e400")
        }
        for text in ["inf", "-Infinity", "nan", "1.2.3"] {
            #expect(throws: ValueRejection("expected a number"), "\(text)") {
                try SettingType.double(range: nil).value(fromText: text)
            }
        }
    }

    @Test("a JSON whole number beyond 64 bits (read as a double) is named as such, not as a number of another type")
    func jsonWholeNumberBeyond64Bits() throws {
        let big = try JSONValue(parsing: "9223372036854775808")
        #expect(big == .double(0x1p63))
        #expect(
            throws: ValueRejection("is beyond the 64-bit integer range (-9223372036854775808..9223372036854775807)")
        ) {
            try SettingType.int(range: nil).value(fromJSON: big)
        }
        #expect(throws: ValueRejection("is beyond the 64-bit integer range; must be within 1..65535")) {
            try SettingType.int(range: 1...65535).value(fromJSON: -1e19)
        }
        // -9223372036854775809 is read as the double -2^63: beyond, not silently the smallest integer, and shown as
        // -9223372036854775808, which the reason explains.
        #expect(try JSONValue(parsing: "-9223372036854775809") == .double(-0x1p63))
        #expect(
            throws: ValueRejection(
                "is beyond the 64-bit integer range (-9223372036854775808..9223372036854775807) (a JSON integer beyond"
                    + " 64 bits is read as a double, and one just below the range rounds to -9223372036854775808, the"
                    + " lowest int, which is taken written as an integer)"
            )
        ) {
            try SettingType.int(range: nil).value(fromJSON: JSONValue(parsing: "-9223372036854775809"))
        }
        #expect(
            try SettingType.int(range: nil).value(fromJSON: JSONValue(parsing: "-9223372036854775808")) == .int(.min)
        )
        // A whole number written with '.' or an exponent is no integer, as in a stored value or a schema's default.
        for text in ["2.0", "6e1", "9.2e18"] {
            let number = try JSONValue(parsing: text)
            #expect(throws: ValueRejection.self, "\(text)") { try SettingType.int(range: nil).value(fromJSON: number) }
        }
        #expect(
            throws: ValueRejection(
                "is not an integer (write 60: an int takes no '.' or exponent, in a schema as in a stored or set value)"
            )
        ) {
            try SettingType.int(range: nil).value(fromJSON: 6e1)
        }
        #expect(throws: ValueRejection("expected an integer, found a number")) {
            try SettingType.int(range: nil).value(fromJSON: 1.5)
        }
        #expect(big.givenText == "9223372036854775808")
        #expect(JSONValue.double(-1e19).givenText == "-10000000000000000000")
        #expect(JSONValue.double(1e21).givenText == "1e+21")
        #expect(JSONValue.double(1.5).givenText == "1.5")
        #expect(JSONValue.string("80").givenText == #""80""#)
        #expect(JSONValue.int(80).givenText == "80")
    }

    @Test("a choice that could not be told apart in the constraint's list is shown as its JSON string")
    func constraintChoices() {
        let type = SettingType.string(
            choices: ["a b", "-x", "(none)", #""q""#, "", "plain", "a,b"],
            pattern: nil,
            maxLength: nil
        )
        #expect(
            SettingsFormatter.constraint(type)
                == #"one of "a b", -x, "(none)", "\"q\"", "", plain, "a,b""#
        )
        // A refused value's reason lists them the same way.
        #expect(throws: ValueRejection("must be one of \"a b\", -x, \"(none)\", \"\\\"q\\\"\", \"\", plain, \"a,b\"")) {
            try type.checked(.string("nope"))
        }
        let plain = SettingType.string(choices: ["none", "manual", "auto"], pattern: nil, maxLength: nil)
        #expect(SettingsFormatter.constraint(plain) == "one of none, manual, auto")
    }

    @Test("a long list of choices is cut in a refused value's reason and the constraint, saying how many more")
    func manyChoices() throws {
        let choices = (0..<200_000).map { "choice\($0)" }
        let type = SettingType.string(choices: choices, pattern: nil, maxLength: nil)
        let refused = #expect(throws: ValueRejection.self) { try type.checked(.string("nope")) }
        let reason = try #require(refused?.reason)
        #expect(reason.hasPrefix("must be one of choice0, choice1, "), "\(reason)")
        #expect(reason.utf8.count < 600, "\(reason.utf8.count) bytes")
        let shown = reason.components(separatedBy: ", ").count - 1  // the last part is the count
        #expect(reason.hasSuffix(", … (\(200_000 - shown) more)"), "\(reason)")
        #expect(SettingsFormatter.constraint(type)?.hasSuffix("more)") == true)
        #expect(SettingType.listed(choices: ["a", "b"]) == "a, b")
    }

    @Test("display: an empty string is \"\", and a string in double quotes is its JSON string, so they differ")
    func displayOfQuotedStrings() {
        #expect(SettingsFormatter.display(.string("")) == #""""#)
        #expect(SettingsFormatter.display(.string("   ")) == #""   ""#, "blanks alone would read as nothing")
        #expect(SettingsFormatter.display(.string(" x ")) == #"" x ""#)
        #expect(SettingsFormatter.display(.string("a b")) == "a b")
        #expect(SettingsFormatter.display(.string(#""""#)) == #""\"\"""#)
        #expect(SettingsFormatter.display(.string(#""a""#)) == #""\"a\"""#)
        #expect(SettingsFormatter.display(.string(#"""#)) == #"""#, "one quote cannot be taken for a JSON string")
        #expect(SettingsFormatter.display(.string(#"say "hi""#)) == #"say "hi""#)
        #expect(SettingsFormatter.display(.string("manual")) == "manual")
        #expect(SettingsFormatter.display(.strings([#""""#])) == #"["\"\""]"#)
        #expect(SettingsFormatter.display(.strings([""])) == #"[""]"#)
        #expect(SettingsFormatter.display(.strings(["a", "b"])) == "a, b")
    }

    @Test("display: a list with a word `set` refuses (in quotes, GVariant text) is its JSON array, so it reads back")
    func displayReadsBack() throws {
        for words in [["'de'"], ["x", "'y'"], ["@as []"], ["@as", "b"], ["\"de"]] {
            let shown = SettingsFormatter.display(.strings(words))
            #expect(try SettingType.strings().value(fromText: shown) == .strings(words), "\(words) shown as \(shown)")
        }
        #expect(SettingsFormatter.display(.strings(["'de'"])) == #"["'de'"]"#)
        #expect(SettingsFormatter.display(.strings(["de", "fr's"])) == "de, fr's")
    }

    @Test("a double too small to be told from zero is refused, as one too large is")
    func tinyDouble() throws {
        let tiny = #expect(throws: ValueRejection.self) { try SettingType.double(range: nil).value(fromText: "1e-400") }
        #expect(tiny?.reason.contains("too small") == true)
        #expect(try SettingType.double(range: nil).value(fromText: "0e-400") == .double(0))
        #expect(try SettingType.double(range: nil).value(fromText: "5e-324") == .double(.leastNonzeroMagnitude))
    }

    @Test("gsettings habits in a list's text are refused with the forms taken, not stored as written")
    func gsettingsHabits() throws {
        for text in [#""de""#, "'de'", #"fr, "de""#, "@as []", "@as ['de']", #""de,en""#, #""de"#] {
            #expect(throws: ValueRejection.self, "\(text)") { try SettingType.strings().value(fromText: text) }
        }
        let quoted = #expect(throws: ValueRejection.self) { try SettingType.strings().value(fromText: #""de""#) }
        #expect(quoted?.reason.contains("word 1 of the list is in quotes") == true)
        #expect(try SettingType.strings().value(fromText: #"["de"]"#) == .strings(["de"]))
        #expect(try SettingType.strings().value(fromText: #"a"b, c'"#) == .strings([#"a"b"#, "c'"]))
        #expect(try SettingType.strings().value(fromText: "@daily, @weekly") == .strings(["@daily", "@weekly"]))
    }

    @Test("a long pattern is shown cut in the reason, with where to read it whole")
    func longPatternIsCut() throws {
        let pattern = "^(" + Array(repeating: "[0-9]{1,3}", count: 20).joined(separator: "|") + ")$"
        let type = SettingType.strings(maxItems: nil, maxLength: nil, pattern: pattern, maxSize: nil)
        let error = #expect(throws: ValueRejection.self) { try type.checked(.strings(["a"])) }
        let reason = error?.reason ?? ""
        #expect(reason.hasPrefix("item 1 must match the pattern ^([0-9]{1,3}|"), "\(reason)")
        #expect(
            reason.hasSuffix(
                "… (\(pattern.count) characters: settingsctl explain KEY shows it, and what the key takes)"
            )
        )
        #expect(reason.count < 160)
        // The Presenter's words name the key in the hint, set or load.
        let failure = SettingsFormatter.error(.invalidValue(key: "network.dns.servers", value: "a", reason: reason))
        #expect("\(failure)".contains("settingsctl explain network.dns.servers shows it"), "\(failure)")
        let problem = SettingsFormatter.problem(.invalidValue(key: "network.dns.servers", value: "a", reason: reason))
        #expect(problem.reason.contains("settingsctl explain network.dns.servers shows it"), "\(problem)")
    }

    @Test("each string of a list must match the pattern, and the first that does not is named")
    func listPattern() throws {
        let hosts = SettingType.strings(pattern: "^[a-z.]+$")
        #expect(try hosts.value(fromText: "a.example,b") == .strings(["a.example", "b"]))
        #expect(throws: ValueRejection("item 2 must match the pattern ^[a-z.]+$")) {
            try hosts.value(fromJSON: ["a", "b c", "$HOME"])
        }
        #expect(SettingsFormatter.constraint(hosts) == "a list of strings, each matching ^[a-z.]+$")
    }

    @Test("maxLength counts code points: combining marks do not make a long string one character")
    func lengthInCodePoints() {
        let combining = "e" + String(repeating: "\u{0301}", count: 5)
        #expect(combining.count == 1)
        #expect(throws: ValueRejection("must be at most 2 characters, has 6")) {
            try SettingType.string(choices: nil, pattern: nil, maxLength: 2).value(fromText: combining)
        }
        #expect(throws: ValueRejection("item 1 must be at most 2 characters, has 6")) {
            try SettingType.strings(maxLength: 2).value(fromJSON: [.string(combining)])
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
        // C1 controls too: U+009B is a one-character ESC [, U+0085 a line break.
        for control in ["a\u{9B}31mb", "a\u{85}b", "a\u{7F}b", "a\u{80}b", "a\u{9F}b"] {
            #expect(throws: ValueRejection.self, "\(control.unicodeScalars.map(\.value))") {
                try string.value(fromJSON: .string(control))
            }
        }
        #expect((try? string.value(fromJSON: "a\u{A0}b")) == .string("a\u{A0}b"), "U+00A0 is a space, not a control")
    }

    @Test("a value that would read (none), the words for no value, is displayed as its JSON; others as before")
    func noneIsDisplayedAsJSON() {
        #expect(SettingsFormatter.display(.string("(none)")) == #""(none)""#)
        #expect(SettingsFormatter.display(.strings(["(none)"])) == #"["(none)"]"#)
        #expect(SettingsFormatter.display(.strings(["(none)", "a"])) == "(none), a")
        #expect(SettingsFormatter.display(.string("none")) == "none")
    }

    @Test("an int written with an exponent or a fraction is refused, naming the digits to write")
    func intInDigits() {
        for text in ["1e3", "1000.0", "1E3"] {
            let refused = #expect(throws: ValueRejection.self) { try SettingType.int(range: nil).value(fromText: text) }
            #expect(refused?.reason.contains("write 1000") == true, "\(text): \(String(describing: refused))")
        }
        let fraction = #expect(throws: ValueRejection.self) { try SettingType.int(range: nil).value(fromText: "1.5") }
        #expect(fraction?.reason == "expected a whole number")
    }
}

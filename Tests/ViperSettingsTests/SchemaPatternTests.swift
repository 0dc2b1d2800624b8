import Foundation
import SettingsAPI
import Testing
import ViperSettings

/// A schema's `pattern` is matched in linear time: the syntax it takes matches as a regular expression does, what it
/// cannot match so is refused at load, and a pattern that would make a backtracking matcher run for ever is done
/// with a 64 KiB value at once (the suite's time limit turns a hang into a failure).
@Suite("Schema patterns", .timeLimit(.minutes(1)))
struct SchemaPatternTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var pattern: String
        var value: String
        var matches: Bool
        var testDescription: String { "\(self.pattern) ~ \(self.value.debugDescription): \(self.matches)" }
    }

    static let syntax: [Case] = [
        Case(pattern: "abc", value: "abc", matches: true),
        Case(pattern: "abc", value: "abcd", matches: false),
        Case(pattern: "abc", value: "xabc", matches: false),
        Case(pattern: "", value: "", matches: true),
        Case(pattern: "a.c", value: "aéc", matches: true),
        Case(pattern: "a.c", value: "ac", matches: false),
        Case(pattern: "a.c", value: "ae\u{301}c", matches: false),
        Case(pattern: #"\d+"#, value: "0123456789", matches: true),
        Case(pattern: #"\d+"#, value: "１２", matches: false),
        Case(pattern: #"\d"#, value: "٣", matches: false),
        Case(pattern: #"\D\W\S"#, value: "a-é", matches: true),
        Case(pattern: #"\w+"#, value: "Az_09", matches: true),
        Case(pattern: #"\w"#, value: "é", matches: false),
        Case(pattern: #"a\sb"#, value: "a b", matches: true),
        Case(pattern: #"a\sb"#, value: "a\u{A0}b", matches: false),
        Case(pattern: #"\.\\\-\/\[\]\(\)\{\}\*\+\?\|\^\$"#, value: #".\-/[](){}*+?|^$"#, matches: true),
        Case(pattern: #"\u00e9\u{1F600}"#, value: "é😀", matches: true),
        Case(pattern: "[a-c]+", value: "abcab", matches: true),
        Case(pattern: "[a-c]+", value: "abd", matches: false),
        Case(pattern: #"[^\]]+"#, value: "a[b", matches: true),
        Case(pattern: #"[^\]]+"#, value: "a]b", matches: false),
        Case(pattern: #"[\d\w.-]+"#, value: "a-1.b_", matches: true),
        Case(pattern: "[^a-z]", value: "é", matches: true),
        Case(pattern: "[^a-z]", value: "q", matches: false),
        Case(pattern: "[A-Za-z0-9*.:/_\\[\\]-]+", value: "*.example.org", matches: true),
        Case(pattern: "(ab)+", value: "ababab", matches: true),
        Case(pattern: "(?:ab)+", value: "aba", matches: false),
        Case(pattern: "cat|dog", value: "dog", matches: true),
        Case(pattern: "cat|dog", value: "catdog", matches: false),
        Case(pattern: "a|", value: "", matches: true),
        Case(pattern: "a*", value: "", matches: true),
        Case(pattern: "a+", value: "", matches: false),
        Case(pattern: "ab?c", value: "ac", matches: true),
        Case(pattern: "a{3}", value: "aaa", matches: true),
        Case(pattern: "a{3}", value: "aaaa", matches: false),
        Case(pattern: "a{2,}", value: "aaaaa", matches: true),
        Case(pattern: "a{2,}", value: "a", matches: false),
        Case(pattern: "a{1,3}", value: "aaa", matches: true),
        Case(pattern: "a{1,3}", value: "aaaa", matches: false),
        Case(pattern: "a{0,2}b", value: "b", matches: true),
        Case(pattern: "a*?b+?c??d{1,2}?", value: "aabbdd", matches: true),
        Case(pattern: "^abc$", value: "abc", matches: true),
        Case(pattern: "^$|^x$", value: "", matches: true),
        Case(pattern: "^$|^x$", value: "x", matches: true),
        Case(pattern: "a^b", value: "ab", matches: false),
        Case(pattern: "(a*)*b", value: "aaab", matches: true),
        Case(pattern: "(a|b)*(?=c)c", value: "abc", matches: true),
        Case(pattern: "(?=[a-z]*$)[a-z0-9]+", value: "abc", matches: true),
        Case(pattern: "(?=[a-z]*$)[a-z0-9]+", value: "ab1", matches: false),
        Case(pattern: "(?!.*--).+", value: "a-b", matches: true),
        Case(pattern: "(?!.*--).+", value: "a--b", matches: false),
        Case(pattern: "(?=(a(?!b))+c).*", value: "aac", matches: true),
        Case(pattern: "(?=(a(?!b))+c).*", value: "abc", matches: false),
    ]

    @Test("the syntax taken matches what it should", arguments: Self.syntax)
    func matchesSyntax(_ test: Case) throws {
        #expect(try PatternProgram(test.pattern).matches(test.value) == test.matches)
    }

    /// The patterns of the bundled schemas, by key.
    static func bundledPatterns() throws -> [(key: String, pattern: String)] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/modules")
        var patterns: [(key: String, pattern: String)] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: root.path).sorted()
        where file.hasSuffix(".json") {
            let json = try JSONValue(
                parsing: String(decoding: try Data(contentsOf: root.appendingPathComponent(file)), as: UTF8.self)
            )
            for section in json["sections"]?.arrayValue ?? [] {
                for item in section["items"]?.arrayValue ?? [] {
                    if let pattern = item["pattern"]?.stringValue {
                        let key = [json["module"], section["id"], item["id"]].compactMap { $0?.stringValue }
                        patterns.append((key.joined(separator: "."), pattern))
                    }
                }
            }
        }
        return patterns
    }

    /// Values the tests and README give the bundled keys, and near misses.
    static let samples = [
        "1.1.1.1:53", "fe80::1%eth0", "[::1]:53", "cafe", "...", ":", "256.1.1.1", "[::1]", "9.9.9.9", "1.1.1.1",
        "::1", "::", "1::", "2001:db8::1", "2001:db8:0:0:0:0:0:1", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8:9",
        "1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:8::", "::ffff:1.2.3.4", "1:2:3:4:5::1.2.3.4", "1:2:3:4:5:6::1.2.3.4",
        "1:2:3:4:5:6:1.2.3.4", "[2001:db8::1]:853#dns.example", "1.1.1.1#cloudflare-dns.com", "[fe80::1]:53%eth0",
        "fe80::1%eth0#x", "1.2.3.4:65535", "1.2.3.4:65536", "1.2.3.4:0", "[1.2.3.4]:53", "12345::1", "::1]:53",
        "[::1:53", "", "localhost", "127.0.0.0/8", "*.example.org", "a b", "a$b", "proxy.example.org", "not a host!",
        "-a", "a-", "a", "en_US.UTF-8", "C.UTF-8", "C", "POSIX", "de_DE@euro", "EN_us", "Etc/UTC",
        "America/Argentina/Buenos_Aires", "/UTC", "UTC/", "03:00", "23:59", "24:00", "3:00", "caf\u{E9}",
        // ModuleCatalogLoaderTests' DNS servers.
        "2606:4700::1111", "[2606:4700::1111]:853", "9.9.9.9#dns.quad9.net", "0.0.0.0", "255.255.255.255",
        "::2:3:4:5:6:7:8", "::ffff:192.0.2.1", "1:2:3:4:5:6:192.0.2.1", "[::ffff:192.0.2.1]:53", "FE80::A%2",
        "2001:db8::1:53", "[fe80::1]:853%eth0#dns.example", "192.0.2.1:853%eth0#dns.example", "1.1.1.1 8.8.8.8",
        "#x", "not-an-ip", "1.1.1.1;rm", ":::", "1.1.1", "1.1.1.1.1", "01.1.1.1", "1.1.1.1:", "1:2:3:4:5:6:7",
        "1::2::3", "12345::", "1:2:3:4:5:6::7:8", "1:2:3:4:5:6::192.0.2.1", "::256.1.1.1", "[::1]:", "[::1]]:53",
        "[::1%eth0]:53", "fe80::1%", "1.1.1.1#", "::g", ".example.com", "intra_net-1",
        // Locales as locale -a lists them, and near misses.
        "en_US.utf8", "C.utf8", "de_DE.utf8@euro", "en_US.UTF8", "en_US.utf-8",
    ]

    @Test("the locale pattern takes a locale as locale -a lists it (en_US.utf8) or as LANG is often written")
    func localeNames() throws {
        let pattern = try #require(Self.bundledPatterns().first { $0.key == "locale.language.lang" }?.pattern)
        let program = try PatternProgram(pattern)
        for name in ["en_US.utf8", "en_US.UTF-8", "C.utf8", "C.UTF-8", "POSIX", "de_DE.utf8@euro", "fr_FR"] {
            #expect(program.matches(name) == true, "\(name)")
        }
        for name in ["en_US.UTF8", "en_US.utf-8", "en_US.UTF-8 ", "EN_us"] {
            #expect(program.matches(name) == false, "\(name)")
        }
    }

    @Test("the bundled patterns match as the regular expressions they are")
    func bundledPatternsMatchAsRegex() throws {
        let patterns = try Self.bundledPatterns()
        #expect(patterns.count >= 6)
        for (key, pattern) in patterns {
            let program = try PatternProgram(pattern)
            let regex = try Regex(pattern).matchingSemantics(.unicodeScalar)
            for value in Self.samples {
                let expected = (try regex.wholeMatch(in: value)) != nil
                #expect(program.matches(value) == expected, "\(key): \(value.debugDescription)")
            }
        }
    }

    @Test("the DNS servers pattern takes what systemd-resolved reads and refuses what it would ignore")
    func dnsServers() throws {
        let pattern = try #require(try Self.bundledPatterns().first { $0.key == "network.dns.servers" }).pattern
        let program = try PatternProgram(pattern)
        for value in ["1.1.1.1:53", "fe80::1%eth0", "[::1]:53", "::1", "2001:db8::1#dns.example", "::ffff:1.2.3.4"] {
            #expect(program.matches(value) == true, "\(value)")
        }
        for value in ["cafe", "...", ":", "256.1.1.1", "[::1]", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7:8::"] {
            #expect(program.matches(value) == false, "\(value)")
        }
    }

    static let refused: [(pattern: String, reason: String)] = [
        (#"(a)\1"#, #"a backreference (\1) at position 4 is not supported"#),
        ("(?<=a)b", "a lookbehind (?<= at position 1 is not supported"),
        ("a(?<!a)b", "a lookbehind (?<! at position 2 is not supported"),
        ("(?<name>a)", "a named group at position 1 is not supported"),
        ("(?>a+)", "an atomic group (?> at position 1 is not supported"),
        ("a++", "a possessive quantifier (++) at position 2 is not supported"),
        ("(?i)a", "a group or inline option starting (?i at position 1 is not supported"),
        (#"\bword"#, #"a word boundary (\b) at position 1 is not supported"#),
        (#"\p{L}"#, #"a Unicode property (\p) at position 1 is not supported"#),
        (
            "[[:alpha:]]",
            "a '[' inside a class (a nested or POSIX class); write \\[ for the character, at position 2 is not supported"
        ),
        ("(a", "a '(' without its ')' at position 1"),
        ("a)", "a ')' without its '(' at position 2"),
        ("*a", "a quantifier (*) with nothing to repeat at position 1"),
        ("a**", "a quantifier right after another at position 3"),
        ("[b-a]", "a range whose end comes before its start at position 2"),
        ("a{2,1}", "a quantifier {2,1} whose maximum is below its minimum at position 2"),
        (
            "(a{1000}){20}",
            "the pattern is too large: it compiles to more than 10000 instructions (a {n,m} quantifier copies what it"
                + " repeats m times)"
        ),
    ]

    @Test("a construct the matcher does not take is refused at load, named with its position")
    func refusedAtLoad() throws {
        for (pattern, reason) in Self.refused {
            let item: JSONValue = ["id": "i", "type": "string", "pattern": .string(pattern)]
            let schema: JSONValue = ["module": "m", "sections": [["id": "s", "items": [item]]]]
            #expect(
                throws: SchemaError(
                    path: "$.sections[0].items[0].pattern",
                    reason: "not a valid regular expression: \(reason)"
                )
            ) {
                try ModuleSchema(json: schema)
            }
        }
    }

    @Test("\\d takes the ASCII digits only, as \\w and \\s take ASCII only")
    func asciiClasses() throws {
        let digits = SettingType.string(choices: nil, pattern: #"\d+"#, maxLength: nil)
        #expect(try digits.checked(.string("0123456789")) == .string("0123456789"))
        #expect(throws: ValueRejection(#"must match the pattern \d+"#)) { try digits.checked(.string("１２")) }
        let word = SettingType.strings(pattern: #"\w+\s\w+"#)
        #expect(throws: ValueRejection(#"item 1 must match the pattern \w+\s\w+"#)) {
            try word.checked(.strings(["é\u{2003}b"]))
        }
    }

    @Test("a pattern that makes a backtracking matcher run for ever checks a 64 KiB value at once")
    func catastrophicPatterns() throws {
        let value = String(repeating: "a", count: 64 << 10) + "!"
        let digits = String(repeating: "1", count: 64 << 10)
        for (pattern, text) in [("(a+)+$", value), ("(a|a)*$", value), ("(a{1,3})+x", value), (#"\d*\d*\d*x"#, digits)]
        {
            let type = SettingType.string(choices: nil, pattern: pattern, maxLength: nil)
            #expect(throws: ValueRejection("must match the pattern \(pattern)")) { try type.checked(.string(text)) }
            let list = SettingType.strings(pattern: pattern)
            #expect(throws: ValueRejection("item 1 must match the pattern \(pattern)")) {
                try list.checked(.strings([text]))
            }
        }
        let network = try #require(try Self.bundledPatterns().first { $0.key == "network.dns.servers" }).pattern
        #expect(try PatternProgram(network).matches(String(repeating: "1:", count: 32 << 10)) == false)
    }

    @Test("costly decisions are kept for more values than a module's show meets, a text too long to check as such")
    func keptDecisions() throws {
        // Each text costs more than what is kept: more of them than the 64 kept before, as the costly values of one
        // large module are, all decided once.
        let program = try PatternProgram("(?:.*a){100}b|b")
        for index in 0..<70 {
            var budget = PatternProgram.stepLimit
            #expect(program.matches(String(repeating: "a", count: 600 + index), budget: &budget) == false)
        }
        #expect(program.keptCount == 70)
        var free = 10
        #expect(program.matches(String(repeating: "a", count: 600), budget: &free) == false && free == 10)
        // A text past the whole budget is remembered as such: another read of it costs nothing and says the same.
        let costly = try PatternProgram("(?:.*a){1000}b")
        let value = String(repeating: "a", count: 64_000)
        #expect(costly.matches(value) == nil)
        #expect(costly.keptCount == 1)
        var budget = 10
        #expect(costly.matches(value, budget: &budget) == nil && budget == 0)
    }

    @Test("a long value for a pattern whose program is live all at once is refused past the matcher's step limit")
    func stepLimit() throws {
        let value = String(repeating: "a", count: 64_000)
        for pattern in [".*(?:a?){1000}(?:a?){1000}(?:a?){1000}b", "(?:.*a){1000}b", "(?:(?!b)(?:.*a.*a.*a.*a)){500}z"]
        {
            let program = try PatternProgram(pattern)
            #expect(program.matches(value, stepLimit: 300_000) == nil, "\(pattern)")
            // A short value of the same pattern is decided.
            #expect(program.matches(String(repeating: "a", count: 20), stepLimit: 300_000) == false, "\(pattern)")
        }
        // The daemon's limit (about a tenth of a second in a release build; the checks below take seconds in a
        // debug one).
        let pattern = "(?:.*a){1000}b"
        let type = SettingType.string(choices: nil, pattern: pattern, maxLength: nil)
        let refused = #expect(throws: ValueRejection.self) { try type.checked(.string(value)) }
        #expect(refused?.reason.hasPrefix("is too long to check against the pattern (?:.*a){1000}b (more than") == true)
        let list = #expect(throws: ValueRejection.self) {
            try SettingType.strings(pattern: pattern).checked(.strings([value]))
        }
        #expect(list?.reason.hasPrefix("up to item 1, the list is too long to check against the pattern") == true)
        // The bound is the whole value's: items each within it, together past it, are refused as well.
        let items = Array(repeating: String(repeating: "a", count: 30) + "b", count: 4)
        let few = SettingType.strings(pattern: "(?:.*a){30}b")
        #expect(try few.checked(.strings(items)) == .strings(items))
        var budget = 3_000_000
        let program = try PatternProgram("(?:.*a){1000}b")
        var decided = 0
        while decided < 100,
            program.matches(String(repeating: "a", count: 1000 + decided) + "b", budget: &budget) == true
        {
            decided += 1
        }
        #expect(decided >= 1 && decided < 100 && budget == 0, "each item takes its steps from the budget: \(decided)")
        // A costly decision is kept: the same text again costs nothing.
        var again = 10
        #expect(program.matches(String(repeating: "a", count: 1000) + "b", budget: &again) == true && again == 10)
        // The bundled patterns decide a value of the largest size.
        for (key, pattern) in try Self.bundledPatterns() {
            #expect(try PatternProgram(pattern).matches(String(repeating: "a1.", count: 21_000)) != nil, "\(key)")
        }
    }
}

/// Templates put values into files verbatim: what keeps a value read by a bundled target from breaking out of the
/// file's syntax (a `"` ending an apt string, a `;` or `$` in a file a shell sources) is its key's schema.
@Suite("Bundled targets read only values that cannot break their files' syntax")
struct BundledTargetValueTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func json(_ path: String) throws -> JSONValue {
        try JSONValue(
            parsing: String(decoding: try Data(contentsOf: Self.root.appendingPathComponent(path)), as: UTF8.self)
        )
    }

    @Test("every text a bundled target reads refuses quotes, backslashes, $, backquotes, ; and blanks")
    func quotingCharactersRefused() throws {
        var schemas: [String: ModuleSchema] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: Self.root.path + "/config/modules")
        where file.hasSuffix(".json") {
            let schema = try ModuleSchema(json: try Self.json("config/modules/" + file))
            schemas[schema.name] = schema
        }
        var read: Set<String> = []
        for file in try FileManager.default.contentsOfDirectory(atPath: Self.root.path + "/config/apply.d")
        where file.hasSuffix(".json") {
            for key in try Self.json("config/apply.d/" + file)["reads"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
                read.insert(key)
            }
        }
        var checked = 0
        for schema in schemas.values {
            for section in schema.sections {
                for item in section.items {
                    let key = "\(schema.name).\(section.id).\(item.id)"
                    guard read.contains(where: { key == $0 || key.hasPrefix($0 + ".") }) else { continue }
                    let text: String
                    switch item.defaultValue {
                    case .string(let value): text = value
                    case .strings(let values): text = values.first ?? "a"
                    default: continue
                    }
                    for bad in ["\"", "'", "\\", "$", "`", ";", " ", "\t"] {
                        for value in [text + bad, bad + text, bad] {
                            let setting: SettingValue =
                                if case .strings = item.type { .strings([value]) } else { .string(value) }
                            #expect(throws: (any Error).self, "\(key) accepts \(value.debugDescription)") {
                                try item.type.checked(setting)
                            }
                        }
                    }
                    checked += 1
                }
            }
        }
        #expect(checked >= 8, "the bundled targets read texts")
    }
}

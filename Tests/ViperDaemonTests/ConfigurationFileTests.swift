import Testing
import ViperDaemon

@Suite("viper-settingsd.conf")
struct ConfigurationFileTests {
    static func parse(_ text: String) throws(ConfigurationError) -> [String: String] {
        try ConfigurationFile(text: text, path: "/etc/viper-settings/viper-settingsd.conf").values
    }

    static func error(_ text: String) -> String? {
        #expect(throws: ConfigurationError.self) { try Self.parse(text) }?.message
    }

    @Test("reads key = value lines around comments and blank lines")
    func plainLines() throws {
        let text = "# comment\n; also a comment\n\n  log-level=debug  \nsocket = /run/x.sock\n"
        #expect(try Self.parse(text) == ["log-level": "debug", "socket": "/run/x.sock"])
    }

    @Test("a # after a blank starts a comment; inside a word or quotes it is kept")
    func inlineComments() throws {
        let text = """
            socket = /run/viper.sock # the socket
            state-dir = /var/lib/viper\t# tab before
            remote = https://fleet.example/settings.json#v2
            modules-dir = "/srv/a # b"  # quoted
            log-level = # nothing but a comment
            """
        #expect(
            try Self.parse(text) == [
                "socket": "/run/viper.sock", "state-dir": "/var/lib/viper",
                "remote": "https://fleet.example/settings.json#v2", "modules-dir": "/srv/a # b", "log-level": "",
            ]
        )
    }

    @Test("lines may end in CRLF")
    func crlf() throws {
        #expect(
            try Self.parse("log-level = debug\r\nsocket = /run/x.sock\r\n") == [
                "log-level": "debug", "socket": "/run/x.sock",
            ]
        )
    }

    @Test("a byte order mark at the start of the file is not part of the first key")
    func byteOrderMark() throws {
        #expect(try Self.parse("\u{FEFF}modules-dir = /m\nsocket = /s\n") == ["modules-dir": "/m", "socket": "/s"])
    }

    @Test("an unknown key is an error naming the file, the line, the key and the known keys")
    func unknownKey() throws {
        let message = try #require(Self.error("log-level = info\nlog_level = debug\n"))
        #expect(message.hasPrefix("/etc/viper-settings/viper-settingsd.conf:2: unknown setting 'log_level'"))
        #expect(message.contains("known: "))
        #expect(message.contains("log-level"))
    }

    @Test("a key set twice is an error naming both lines")
    func duplicateKey() {
        let message = Self.error("socket = /a\n# between\nsocket = /b\n")
        #expect(message == "/etc/viper-settings/viper-settingsd.conf:3: 'socket' is set twice (first on line 1)")
    }

    @Test(
        "malformed lines are errors naming the line",
        arguments: [
            ("log-level info", ":1: expected 'key = value', found 'log-level info'"),
            ("= info", ":1: expected a key before '='"),
            ("\nsocket = \"/run/x", ":2: missing the closing '\"' of a quoted value"),
            ("socket = \"/run/x\" extra", ":1: unexpected 'extra' after a quoted value"),
        ]
    )
    func malformed(text: String, expected: String) {
        let message = Self.error(text)
        #expect(message?.contains(expected) == true, "\(message ?? "parsed")")
    }
}

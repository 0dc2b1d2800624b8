import Testing
import ViperSync

/// What an `http(s)://` remote URL must be before the daemon starts with it: anything the HTTP client could not use,
/// or would use otherwise than written, is refused when the configuration is read.
@Suite("HTTP source configuration: the URL")
struct HTTPSourceConfigurationTests {
    @Test(
        "a URL the client could not use, or would use otherwise than written, is refused, saying why",
        arguments: [
            ("http://127.0.0.1:99999/x", "the port must be a number from 1 to 65535"),
            ("https://h:65536/doc.json", "the port must be a number from 1 to 65535"),
            ("https://h:99999999999999999999/x", "the port must be a number from 1 to 65535"),
            ("http://h:abc/x", "the port must be a number from 1 to 65535"),
            ("http://h:/x", "the port must be a number from 1 to 65535"),
            ("http://h:+80/x", "the port must be a number from 1 to 65535"),
            ("http://fleet:S3cret@h/doc.json", "a user or password in the URL is not supported"),
            ("http://[::1/x", "an unclosed '['"),
            ("http://[zz]/x", "is not an IPv6 address"),
            ("http://h/a b.json", "contains a space"),
            ("http://h\u{7}/x", "contains U+7"),
            ("http://ex%ample.org!/x", "the host may not contain '!'"),
            ("http:///x", "has no host"),
        ]
    )
    func refused(url: String, reason: String) {
        #expect {
            try HTTPSourceConfiguration(url: url).validate()
        } throws: { error in
            // A password is not repeated: the message is shown to every local user.
            "\(error)".contains(reason) && !"\(error)".contains("S3cret")
        }
    }

    @Test(
        "usual URLs are taken",
        arguments: [
            "https://config.example.org/fleet/settings.json", "http://127.0.0.1:8080/doc.json", "https://[::1]:8443/x",
            "https://h/x?token=a#frag", "HTTPS://Example.org", "http://h:65535/x", "http://h_1.example-2.org/%7Ex",
        ]
    )
    func taken(url: String) throws {
        try HTTPSourceConfiguration(url: url).validate()
    }
}

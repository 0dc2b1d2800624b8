import SettingsAPI
import Testing
import ViperSettings
import ViperSync

/// ``HTTPDocumentParser``: the document shape and its error messages.
@Suite("HTTP document parser")
struct HTTPDocumentParserTests {
    private func parse(_ text: String, fallback: String = "etag") throws(RemoteSyncError) -> RemoteSnapshot {
        try HTTPDocumentParser.parse(Array(text.utf8), fallbackRevision: fallback)
    }

    private func message(_ text: String) -> String? {
        do {
            _ = try self.parse(text)
            return nil
        } catch {
            return error.message
        }
    }

    @Test("the documented example parses")
    func example() throws {
        let snapshot = try self.parse(
            #"{"revision": "r42", "modules": {"network": {"recommended": {"proxy.mode": "auto"}, "mandatory": {"proxy.port": 8080}}}}"#
        )
        #expect(
            snapshot
                == RemoteSnapshot(
                    revision: "r42",
                    modules: [
                        "network": RemoteModuleValues(
                            recommended: ["proxy.mode": .string("auto")],
                            mandatory: ["proxy.port": .int(8080)]
                        )
                    ]
                )
        )
    }

    @Test("the revision falls back; empty modules and layers are fine")
    func fallbackRevision() throws {
        let snapshot = try self.parse(#"{"modules": {"network": {}}, "comment": "ignored"}"#, fallback: "\"abc\"")
        #expect(snapshot.revision == "\"abc\"")
        #expect(snapshot.modules == ["network": RemoteModuleValues()])
    }

    @Test("a revision of 256 bytes is taken, as given")
    func longestRevision() throws {
        let revision = String(repeating: "é", count: 128)
        let snapshot = try self.parse(#"{"revision": "\#(revision)", "modules": {}}"#, fallback: "x")
        #expect(snapshot.revision == revision)
    }

    @Test(
        "shape errors name the JSON path",
        arguments: [
            ("[]", "$ must be an object, not array"),
            (#"{"revision": 42, "modules": {}}"#, "$.revision must be a non-empty string, not integer"),
            (#"{"revision": "", "modules": {}}"#, "$.revision must be a non-empty string, not an empty one"),
            (#"{"revision": "r1"}"#, "$.modules is missing"),
            (
                #"{"revision": ""# + String(repeating: "r", count: 257) + #"", "modules": {}}"#,
                "$.revision is 257 bytes long, more than 256",
            ),
            (#"{"modules": []}"#, "$.modules must be an object, not array"),
            (#"{"modules": {"network": 1}}"#, "$.modules.network must be an object, not integer"),
            (#"{"modules": {"network": {"mandatroy": {}}}}"#, "$.modules.network.mandatroy is not allowed"),
            (#"{"modules": {"net work": {"mandatory": null}}}"#, #"$.modules["net work"].mandatory must be an object"#),
            (#"{"modules": {"network": {"recommended": {"proxy": 1}}}}"#, "$.modules.network.recommended.proxy: keys"),
        ]
    )
    func shapeErrors(document: String, expected: String) {
        let message = self.message(document)
        #expect(message?.contains(expected) == true, "\(message ?? "parsed")")
    }

    @Test("invalid JSON names line and column")
    func invalidJSON() {
        let message = self.message("{\n  \"modules\": {,}\n}")
        #expect(message?.hasPrefix("document is not valid JSON: line 2, column") == true, "\(message ?? "parsed")")
    }

    @Test("every error names the URL the document came from, when given")
    func namesTheURL() {
        let url = "http://mirror:8080/fleet.json (redirected from https://config.example.org/fleet.json)"
        #expect(throws: RemoteSyncError.attempt("document from \(url): $.modules is missing")) {
            try HTTPDocumentParser.parse(Array("{}".utf8), fallbackRevision: "e", from: url)
        }
        #expect {
            try HTTPDocumentParser.parse(Array("{,}".utf8), fallbackRevision: "e", from: url)
        } throws: { error in
            "\(error)".hasPrefix("document from \(url) is not valid JSON: line 1, column 2: ")
        }
    }

    @Test("a gzip-compressed body is named so, not as a JSON error at its first byte")
    func gzip() {
        let gzipped: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xAB, 0xAE, 0x05, 0x00]
        #expect(
            throws: RemoteSyncError.attempt(
                "document from http://h/f.json is gzip-compressed data, not JSON: serve it uncompressed (the request "
                    + "does not accept gzip)"
            )
        ) {
            try HTTPDocumentParser.parse(gzipped, fallbackRevision: "e", from: "http://h/f.json")
        }
    }
}

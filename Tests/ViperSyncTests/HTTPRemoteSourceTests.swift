import Foundation
import SettingsAPI
import Testing
import ViperSettings
import ViperTestSupport

@testable import ViperSync

/// ``HTTPRemoteSource`` against a real nginx on loopback, and against faulty servers.
@Suite("HTTP remote source")
struct HTTPRemoteSourceTests {
    private static let first = #"""
        {"revision": "r1", "modules": {"network": {"recommended": {"proxy.mode": "auto"}, "mandatory": {"proxy.port": 8080}}}}
        """#
    private static let second = #"""
        {"revision": "r2-changed", "modules": {"network": {"recommended": {"proxy.mode": "manual"}}}}
        """#

    /// A configuration that polls and retries rarely, so that only `syncNow()` makes attempts during a test.
    private static func configuration(
        _ url: String,
        readTimeout: Duration = .seconds(10),
        maximumBodySize: Int = 4 << 20,
        bearerTokenFile: String? = nil,
        caFile: String? = nil
    ) -> HTTPSourceConfiguration {
        HTTPSourceConfiguration(
            url: url,
            pollInterval: .seconds(3600),
            connectTimeout: .seconds(2),
            readTimeout: readTimeout,
            maximumBodySize: maximumBodySize,
            bearerTokenFile: bearerTokenFile,
            caFile: caFile,
            backoff: Backoff(initial: .seconds(30), maximum: .seconds(3600), jitter: 0.2)
        )
    }

    @Test("first fetch applies the document, the next poll is a cheap 304, a changed file is applied")
    func fetchNotModifiedAndChange() async throws {
        let nginx = try await NginxServer()
        try nginx.write(Self.first, to: "fleet.json")
        try await HTTPSourceHarness.run(Self.configuration("\(nginx.baseURL)/fleet.json")) { source, harness in
            try await source.syncNow()
            #expect(harness.applied.count == 1)
            let snapshot = try #require(harness.applied.first)
            #expect(snapshot.revision == "r1")
            #expect(snapshot.modules["network"]?.recommended["proxy.mode"] == .string("auto"))
            #expect(snapshot.modules["network"]?.mandatory["proxy.port"] == .int(8080))
            #expect(harness.status.snapshot.state == .ok)
            #expect(harness.status.snapshot.revision == "r1")
            #expect(harness.status.snapshot.lastSuccess != nil)
            #expect(harness.status.snapshot.nextAttempt != nil)

            try await source.syncNow()
            #expect(harness.applied.count == 1)
            #expect(harness.status.snapshot.state == .ok)
            #expect(harness.status.snapshot.revision == "r1")
            let log = try await nginx.accessLog(count: 2)
            #expect(log.first == "200 /fleet.json")
            #expect(log.count >= 2)
            #expect(log.dropFirst().allSatisfy { $0 == "304 /fleet.json" })

            try nginx.write(Self.second, to: "fleet.json")
            try await source.syncNow()
            #expect(harness.applied.count == 2)
            #expect(harness.applied.last?.revision == "r2-changed")
            #expect(harness.applied.last?.modules["network"]?.recommended["proxy.mode"] == .string("manual"))
            #expect(harness.applied.last?.modules["network"]?.mandatory.isEmpty == true)
            #expect(harness.status.snapshot.revision == "r2-changed")
        }
    }

    @Test("a document that could not be stored is failing, fetched again whole (not 304) and applied once it is")
    func notStoredIsFetchedAgain() async throws {
        let nginx = try await NginxServer()
        try nginx.write(Self.first, to: "fleet.json")
        try await HTTPSourceHarness.run(Self.configuration("\(nginx.baseURL)/fleet.json")) { source, harness in
            harness.outcome.withLock { $0 = .notStored(reason: "module network: No space left on device") }
            try await source.syncNow()
            #expect(!harness.applied.isEmpty)
            #expect(harness.status.snapshot.state == .failing)
            let error = try #require(harness.status.snapshot.lastError)
            #expect(error.contains("(revision r1) could not be stored: module network: No space left"), "\(error)")

            // Space again: the same document is fetched and handed on again, not answered "not modified".
            harness.outcome.withLock { $0 = .stored }
            try await source.syncNow()
            #expect(harness.applied.last?.revision == "r1")
            #expect(harness.status.snapshot.state == .ok)
            let stored = harness.applied.count
            try await source.syncNow()
            #expect(harness.applied.count == stored, "once stored, the document is not modified")
            let log = try await nginx.accessLog(count: 3)
            #expect(log.last == "304 /fleet.json", "\(log)")
            #expect(log.filter { $0 == "200 /fleet.json" }.count >= 2, "\(log)")
        }
    }

    @Test("without a revision in the document, the ETag is the revision")
    func etagRevision() async throws {
        let nginx = try await NginxServer()
        try nginx.write(#"{"modules": {}}"#, to: "fleet.json")
        try await HTTPSourceHarness.run(Self.configuration("\(nginx.baseURL)/fleet.json")) { source, harness in
            try await source.syncNow()
            let revision = try #require(harness.applied.first?.revision)
            #expect(revision.hasPrefix("\""))
            #expect(harness.status.snapshot.revision == revision)
        }
    }

    @Test("garbage JSON is rejected whole with line and column; the last good values stay")
    func garbageJSON() async throws {
        let nginx = try await NginxServer()
        try nginx.write(Self.first, to: "fleet.json")
        let url = "\(nginx.baseURL)/fleet.json"
        try await HTTPSourceHarness.run(Self.configuration(url)) { source, harness in
            try await source.syncNow()
            #expect(harness.applied.count == 1)
            try nginx.write("{\"revision\": \"r3\",\n  \"modules\": {nope}\n}", to: "fleet.json")
            try await source.syncNow()
            #expect(harness.applied.count == 1)
            let status = harness.status.snapshot
            #expect(status.state == .failing)
            #expect(status.revision == "r1")
            let error = try #require(status.lastError)
            #expect(error.hasPrefix("document from \(url) is not valid JSON: line 2, column"), "\(error)")
            #expect(status.lastSuccess != nil)
        }
    }

    @Test("a document of the wrong shape is rejected, naming the URL and the JSON path")
    func wrongShape() async throws {
        let nginx = try await NginxServer()
        try nginx.write(#"{"modules": {"network": {"recommended": ["proxy.mode"]}}}"#, to: "fleet.json")
        let url = "\(nginx.baseURL)/fleet.json"
        try await HTTPSourceHarness.run(Self.configuration(url)) { source, harness in
            try await source.syncNow()
            #expect(harness.applied.isEmpty)
            #expect(
                harness.status.snapshot.lastError
                    == "document from \(url): $.modules.network.recommended must be an object, not array"
            )
        }
    }

    @Test(
        "a document rejected after a redirect names the URL it came from and the source's, in status and the log",
        arguments: [
            (#"{"revision": "r1", "modules": {"network": {}}, , }"#, " is not valid JSON: line 1, column "),
            (#"{"modules": {}, "modules": {}}"#, " is not valid JSON: line 1, column "),
            (
                String(repeating: "[", count: 200) + String(repeating: "]", count: 200),
                " is not valid JSON: line 1, column "
            ),
            (#"{"modules": {"network": 1}}"#, ": $.modules.network must be an object, not integer"),
        ]
    )
    func documentErrorsNameTheURL(document: String, expected: String) async throws {
        let nginx = try await NginxServer()
        try nginx.write(document, to: "fleet.json")
        let url = "\(nginx.baseURL)/to-fleet"
        let recorder = LogRecorder()
        let configuration = Self.configuration(url)
        let client = HTTPRemoteSource.makeHTTPClient(configuration: configuration)
        let source = HTTPRemoteSource(configuration: configuration, httpClient: client, logger: recorder.logger)
        let named = "document from \(nginx.baseURL)/fleet.json (redirected from \(url))"
        do {
            try await HTTPSourceHarness.run(source) { harness in
                try await source.syncNow()
                #expect(harness.applied.isEmpty)
                let error = try #require(harness.status.snapshot.lastError)
                #expect(error.hasPrefix(named + expected), "\(error)")
            }
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
        let logged = recorder.entries.filter { $0.level == .warning }.map { "\($0.metadata["error"] ?? "")" }
        #expect(logged.contains { $0.hasPrefix(named + expected) }, "\(logged)")
    }

    @Test("over HTTPS, a server certificate signed by the CA in the CA file is trusted; ETag and 304 still apply")
    func httpsWithCAFile() async throws {
        let nginx = try await NginxServer(tls: true)
        try nginx.write(Self.first, to: "fleet.json")
        let url = "\(try #require(nginx.tlsBaseURL))/fleet.json"
        try await HTTPSourceHarness.run(Self.configuration(url, caFile: nginx.caFile)) { source, harness in
            try await source.syncNow()
            #expect(harness.status.snapshot.lastError == nil)
            #expect(harness.applied.count == 1)
            #expect(harness.applied.first?.modules["network"]?.mandatory["proxy.port"] == .int(8080))
            try await source.syncNow()
            #expect(harness.applied.count == 1)
            #expect(harness.status.snapshot.state == .ok)
            // The loop's own first attempt may add a 304 when `syncNow` arrived while it was under way.
            let log = try await nginx.accessLog(count: 2)
            #expect(log.first == "200 /fleet.json")
            #expect(log.count >= 2)
            #expect(log.dropFirst().allSatisfy { $0 == "304 /fleet.json" })
        }
    }

    @Test("over HTTPS, a CA file that is missing or not PEM fails the attempt naming the file and the reason")
    func httpsWithUnusableCAFile() async throws {
        let nginx = try await NginxServer(tls: true)
        try nginx.write(Self.first, to: "fleet.json")
        let url = "\(try #require(nginx.tlsBaseURL))/fleet.json"
        let absent = nginx.directory.appendingPathComponent("absent.pem").path
        try await HTTPSourceHarness.run(Self.configuration(url, caFile: absent)) { source, harness in
            try await source.syncNow()
            #expect(harness.applied.isEmpty)
            #expect(
                harness.status.snapshot.lastError
                    == "cannot read the CA file \(absent) (remote-ca-file): open: No such file or directory"
            )
        }
        let notPEM = nginx.directory.appendingPathComponent("ca.der")
        try Data([0x30, 0x82, 0x01, 0x0A]).write(to: notPEM)
        try await HTTPSourceHarness.run(Self.configuration(url, caFile: notPEM.path)) { source, harness in
            try await source.syncNow()
            #expect(harness.applied.isEmpty)
            #expect(
                harness.status.snapshot.lastError
                    == "the CA file \(notPEM.path) (remote-ca-file) is not a PEM file of certificates (it has no "
                    + "-----BEGIN CERTIFICATE----- line)"
            )
        }
    }

    @Test("over HTTPS, a redirect to plain HTTP is refused: nothing is applied")
    func httpsDowngrade() async throws {
        let nginx = try await NginxServer(tls: true)
        try nginx.write(Self.first, to: "fleet.json")
        let url = "\(try #require(nginx.tlsBaseURL))/to-http"
        try await HTTPSourceHarness.run(Self.configuration(url, caFile: nginx.caFile)) { source, harness in
            try await source.syncNow()
            #expect(harness.applied.isEmpty)
            #expect(harness.status.snapshot.state == .failing)
            let error = try #require(harness.status.snapshot.lastError)
            #expect(
                error.hasPrefix("\(url) redirected to \(nginx.baseURL)/fleet.json, plain HTTP: refused"),
                "\(error)"
            )
        }
    }

    @Test("over HTTPS without the CA file, a certificate from an unknown CA is a failure; nothing is applied")
    func httpsWithoutCAFile() async throws {
        let nginx = try await NginxServer(tls: true)
        try nginx.write(Self.first, to: "fleet.json")
        let url = "\(try #require(nginx.tlsBaseURL))/fleet.json"
        try await HTTPSourceHarness.run(Self.configuration(url)) { source, harness in
            try await source.syncNow()
            #expect(harness.applied.isEmpty)
            #expect(harness.status.snapshot.state == .failing)
            let error = harness.status.snapshot.lastError ?? ""
            #expect(
                error
                    == "TLS handshake with \(url) failed: its certificate does not verify: it is not signed by a trusted CA "
                    + "(set remote-ca-file to the PEM file of the CA that signed it), or it has expired or is not valid "
                    + "yet (see its dates: openssl s_client -connect HOST:PORT </dev/null | openssl x509 -noout -dates)"
            )
        }
    }

    @Test("over HTTPS, a certificate for another host name is a failure, even from the trusted CA")
    func httpsHostnameMismatch() async throws {
        let nginx = try await NginxServer(tls: true, tlsSubjectAltName: "DNS:config.example.org")
        try nginx.write(Self.first, to: "fleet.json")
        let url = "\(try #require(nginx.tlsBaseURL))/fleet.json"
        try await HTTPSourceHarness.run(Self.configuration(url, caFile: nginx.caFile)) { source, harness in
            try await source.syncNow()
            #expect(harness.applied.isEmpty)
            #expect(
                harness.status.snapshot.lastError
                    == "TLS handshake with \(url) failed: the certificate is not for this host name"
            )
        }
    }

    @Test("a redirect is followed to the document; the URL the source names is kept for the next fetch")
    func redirectFollowed() async throws {
        let nginx = try await NginxServer()
        try nginx.write(Self.first, to: "fleet.json")
        try await HTTPSourceHarness.run(Self.configuration("\(nginx.baseURL)/to-fleet")) { source, harness in
            try await source.syncNow()
            #expect(harness.applied.map(\.revision) == ["r1"])
            #expect(harness.status.snapshot.state == .ok)
        }
    }

    @Test(
        "a redirect that cannot be followed says why in words, naming the URL contacted",
        arguments: [
            (
                "/loop-a",
                "redirect cycle: {base}/loop-b (redirected from {url}) redirected to {base}/loop-a, fetched before"
            ),
            ("/hop/0", "too many redirects: {url} was redirected more than 5 times"),
            ("/to-file", "invalid redirect target: {url} redirected to 'file:///etc/passwd', not an http(s) URL"),
            // A port the HTTP client cannot hold stopped the daemon with a trap.
            (
                "/to-port/99999",
                "invalid redirect target: {url} redirected to 'http://127.0.0.1:99999/fleet.json': remote URL "
                    + "http://127.0.0.1:99999/fleet.json: '127.0.0.1:99999': the port must be a number from 1 to 65535"
            ),
        ]
    )
    func redirectFailures(path: String, expected: String) async throws {
        let nginx = try await NginxServer()
        let url = nginx.baseURL + path
        try await HTTPSourceHarness.run(Self.configuration(url)) { source, harness in
            try await source.syncNow()
            #expect(harness.applied.isEmpty)
            #expect(harness.status.snapshot.state == .failing)
            let error = try #require(harness.status.snapshot.lastError)
            let wanted = expected.replacing("{base}", with: nginx.baseURL).replacing("{url}", with: url)
            #expect(error.hasPrefix(wanted), "\(error)")
            #expect(!error.contains("HTTPClientError"), "\(error)")
        }
    }

    @Test("a redirect to a URL with a user and password is refused without repeating them: every user reads status")
    func redirectWithCredentials() async throws {
        let nginx = try await NginxServer()
        try nginx.write(Self.first, to: "fleet.json")
        let url = "\(nginx.baseURL)/to-credentials"
        try await HTTPSourceHarness.run(Self.configuration(url)) { source, harness in
            try await source.syncNow()
            #expect(harness.applied.isEmpty)
            let error = try #require(harness.status.snapshot.lastError)
            #expect(!error.contains("S3CRETPW") && !error.contains("fleetuser"), "\(error)")
            #expect(error.contains("redirected to 'http://***@127.0.0.1:"), "\(error)")
            #expect(error.contains("a user or password in the URL is not supported"), "\(error)")
        }
    }

    @Test("a redirect to a host that refuses names that host's URL, not only the source's")
    func redirectToRefusingHost() async throws {
        let nginx = try await NginxServer()
        let refusing = try LoopbackPort(listening: false)
        let url = "\(nginx.baseURL)/to-port/\(refusing.port)"
        try await HTTPSourceHarness.run(Self.configuration(url)) { source, harness in
            try await source.syncNow()
            #expect(
                harness.status.snapshot.lastError
                    == "fetching http://127.0.0.1:\(refusing.port)/fleet.json (redirected from \(url)) failed: "
                    + "connection refused: nothing listens there (is the server up?)"
            )
        }
        withExtendedLifetime(refusing) {}
    }

    @Test("HTTP 500 is a failure naming the status and URL")
    func serverError() async throws {
        let nginx = try await NginxServer()
        let url = "\(nginx.baseURL)/500"
        try await HTTPSourceHarness.run(Self.configuration(url)) { source, harness in
            try await source.syncNow()
            #expect(harness.applied.isEmpty)
            #expect(harness.status.snapshot.state == .failing)
            #expect(harness.status.snapshot.lastError == "HTTP 500 from \(url)")
        }
    }

    @Test("HTTP 429 with Retry-After is a failure saying so, and the next attempt waits that long, not the backoff")
    func retryAfter() async throws {
        let nginx = try await NginxServer()
        let url = "\(nginx.baseURL)/429"
        try await HTTPSourceHarness.run(Self.configuration(url)) { source, harness in
            try await source.syncNow()
            let status = harness.status.snapshot
            #expect(status.state == .failing)
            #expect(status.lastError == "HTTP 429 from \(url), which asks to retry after 120 s")
            let wait = (status.nextAttempt ?? 0) - (status.lastAttempt ?? 0)
            #expect(wait >= 119 && wait <= 121, "the backoff is 30 s: \(wait)")
        }
    }

    @Test("the same document under a new ETag (a generated one) is applied without an info line at each poll")
    func sameDocumentNewETag() async throws {
        let nginx = try await NginxServer()
        try nginx.write(Self.first, to: "fleet.json")
        let recorder = LogRecorder()
        let url = "\(nginx.baseURL)/fleet.json"
        try await HTTPSourceHarness.run(Self.configuration(url), logger: recorder.logger) { source, harness in
            try await source.syncNow()
            try nginx.write(Self.first, to: "fleet.json")  // the same bytes, a new modification time: a new ETag
            try await source.syncNow()
            try nginx.write(Self.second, to: "fleet.json")
            try await source.syncNow()
            #expect(harness.applied.count == 3)
        }
        #expect(recorder.messages(at: .info) == ["remote document applied", "remote document applied"])
        #expect(recorder.messages(at: .debug).contains("remote document applied (the same document, under a new ETag)"))
    }

    @Test("Retry-After in seconds or as an HTTP date; anything else is none")
    func retryAfterValues() {
        let now = 1_795_000_000.0
        #expect(HTTPRetryAfter.wait("120", now: now) == .seconds(120))
        #expect(HTTPRetryAfter.wait(" 0 ", now: now) == .zero)
        // 2026-11-18 11:06:40 UTC is `now`; a minute later:
        #expect(HTTPRetryAfter.wait("Wed, 18 Nov 2026 11:07:40 GMT", now: now) == .seconds(60))
        #expect(HTTPRetryAfter.wait("Wed, 18 Nov 2026 09:00:00 GMT", now: now) == .zero, "a date past is no wait")
        for bad in [nil, "", "soon", "-5", "1.5", "Wed, 18 Nov 2026 09:47 GMT"] {
            #expect(HTTPRetryAfter.wait(bad, now: now) == nil, "\(String(describing: bad))")
        }
    }

    @Test("a 304 to a request that was not conditional is a failure, not a success with no document")
    func unconditionalNotModified() async throws {
        let nginx = try await NginxServer()
        let url = "\(nginx.baseURL)/304"
        try await HTTPSourceHarness.run(Self.configuration(url)) { source, harness in
            try await source.syncNow()
            #expect(harness.applied.isEmpty)
            #expect(harness.status.snapshot.state == .failing)
            #expect(
                harness.status.snapshot.lastError
                    == "HTTP 304 (not modified) from \(url) to a request that was not conditional"
            )
        }
    }

    @Test("a server that accepts and never answers fails with the read timeout")
    func hangingServer() async throws {
        let listener = try LoopbackPort(listening: true)
        let url = "http://127.0.0.1:\(listener.port)/fleet.json"
        let configuration = Self.configuration(url, readTimeout: .milliseconds(300))
        try await HTTPSourceHarness.run(configuration) { source, harness in
            try await source.syncNow()
            #expect(harness.applied.isEmpty)
            // Not the overall deadline (connect + read), which would say "no complete response".
            let error = try #require(harness.status.snapshot.lastError)
            #expect(error == "read timeout (300 ms) waiting for \(url)")
        }
        withExtendedLifetime(listener) {}
    }

    @Test("a server that trickles its body byte by byte fails at the request timeout; the next attempt is scheduled")
    func tricklingBody() async throws {
        let server = try TricklingHTTPServer(interval: .milliseconds(200))
        let url = "http://127.0.0.1:\(server.port)/fleet.json"
        var configuration = Self.configuration(url)
        configuration.requestTimeout = .seconds(2)
        try await HTTPSourceHarness.run(configuration) { _, harness in
            // The loop's own first attempt: it must end by itself, with the failure and a next attempt.
            let status = try await harness.status(within: .seconds(60)) { $0.nextAttempt != nil }
            #expect(status.state == .failing)
            #expect(status.lastError == "timeout: no complete response from \(url) within 2 s (remote-timeout)")
            #expect(harness.applied.isEmpty)
            #expect(server.bytesSent > 0, "the body had begun")
        }
        withExtendedLifetime(server) {}
    }

    @Test("a body over the limit is a failure")
    func bodyOverLimit() async throws {
        let nginx = try await NginxServer()
        let padding = String(repeating: " ", count: 5000)
        try nginx.write(#"{"modules": {}}"# + padding, to: "big.json")
        let configuration = Self.configuration("\(nginx.baseURL)/big.json", maximumBodySize: 1024)
        try await HTTPSourceHarness.run(configuration) { source, harness in
            try await source.syncNow()
            #expect(harness.applied.isEmpty)
            let error = try #require(harness.status.snapshot.lastError)
            #expect(error.contains("body larger than 1024 bytes"))
        }
    }

    @Test("remote down at start: the failure is recorded and the next attempt scheduled with backoff")
    func downAtStart() async throws {
        let refusing = try LoopbackPort(listening: false)
        let port = refusing.port
        try await HTTPSourceHarness.run(Self.configuration("http://127.0.0.1:\(port)/fleet.json")) { _, harness in
            let status = try await harness.status { $0.nextAttempt != nil }
            #expect(status.state == .failing)
            #expect(status.lastSuccess == nil)
            #expect(
                status.lastError
                    == "fetching http://127.0.0.1:\(port)/fleet.json failed: connection refused: nothing listens there "
                    + "(is the server up?)"
            )
            let now = Date().timeIntervalSince1970
            let next = try #require(status.nextAttempt)
            #expect(next > now + 20 && next < now + 40)
            #expect(harness.applied.isEmpty)
        }
        withExtendedLifetime(refusing) {}
    }

    @Test("the bearer token file is read at each attempt and sent as Authorization")
    func bearerToken() async throws {
        let nginx = try await NginxServer()
        try nginx.write(Self.first, to: "secure/fleet.json")
        let tokenFile = nginx.directory.appendingPathComponent("token")
        try Data("wrong\n".utf8).write(to: tokenFile)
        let url = "\(nginx.baseURL)/secure/fleet.json"
        let configuration = Self.configuration(url, bearerTokenFile: tokenFile.path)
        try await HTTPSourceHarness.run(configuration) { source, harness in
            try await source.syncNow()
            #expect(harness.applied.isEmpty)
            #expect(harness.status.snapshot.lastError == "HTTP 401 from \(url)")

            try Data("s3cret\n".utf8).write(to: tokenFile)
            try await source.syncNow()
            #expect(harness.applied.count == 1)
            #expect(harness.status.snapshot.state == .ok)
        }
    }

    @Test("a missing bearer token file is a failure naming the file")
    func missingTokenFile() async throws {
        let nginx = try await NginxServer()
        let tokenFile = nginx.directory.appendingPathComponent("absent").path
        let configuration = Self.configuration("\(nginx.baseURL)/secure/fleet.json", bearerTokenFile: tokenFile)
        try await HTTPSourceHarness.run(configuration) { source, harness in
            try await source.syncNow()
            #expect(harness.status.snapshot.lastError?.contains(tokenFile) == true)
        }
    }

    @Test("after a failure, the next success resets the backoff and polls at the poll interval")
    func recoversAfterFailure() async throws {
        let nginx = try await NginxServer()
        try await HTTPSourceHarness.run(Self.configuration("\(nginx.baseURL)/fleet.json")) { source, harness in
            try await source.syncNow()
            #expect(harness.status.snapshot.lastError == "HTTP 404 from \(nginx.baseURL)/fleet.json")
            try nginx.write(Self.first, to: "fleet.json")
            try await source.syncNow()
            let status = harness.status.snapshot
            #expect(status.state == .ok)
            #expect(status.lastError == nil)
            let next = try #require(status.nextAttempt)
            #expect(next > Date().timeIntervalSince1970 + 3000)
        }
    }

    @Test("the loop polls by itself at the poll interval")
    func pollsByItself() async throws {
        let nginx = try await NginxServer()
        try nginx.write(Self.first, to: "fleet.json")
        var configuration = Self.configuration("\(nginx.baseURL)/fleet.json")
        configuration.pollInterval = .milliseconds(20)
        let log = try await HTTPSourceHarness.run(configuration) { _, harness in
            let lines = try await nginx.accessLog(count: 4)
            #expect(harness.applied.count == 1)
            return lines
        }
        #expect(log.count >= 4)
        #expect(log.dropFirst().allSatisfy { $0 == "304 /fleet.json" })
    }

    @Test("cancelling run ends it promptly; syncNow afterwards fails at once: the source stopped")
    func cancellation() async throws {
        let listener = try LoopbackPort(listening: true)
        // The server never answers, so without cancellation the attempt would last the whole minute.
        let configuration = Self.configuration(
            "http://127.0.0.1:\(listener.port)/fleet.json",
            readTimeout: .seconds(60)
        )
        let client = HTTPRemoteSource.makeHTTPClient(configuration: configuration)
        let source = HTTPRemoteSource(
            configuration: configuration,
            httpClient: client,
            clock: ContinuousClock(),
            logger: HTTPSourceHarness.logger
        )
        let started = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await source.run(
                    applying: { _ in .stored },
                    status: SyncStatusRecorder(source: source.endpointDescription)
                )
            }
            group.addTask { try? await source.syncNow() }
            group.cancelAll()
        }
        await #expect(throws: SyncInterruption.sourceStopped) { try await source.syncNow() }
        #expect(ContinuousClock.now - started < .seconds(30))
        try await client.shutdown()
        withExtendedLifetime(listener) {}
    }
}

public import AsyncHTTPClient
public import Logging
import NIOCore
import NIOSSL
import Synchronization
public import ViperPOSIX
public import ViperSettings

/// A ``RemoteSource`` that polls a JSON document over HTTP(S) with conditional GETs (`If-None-Match`).
///
/// A `304 Not Modified` costs one small exchange and applies nothing. A `200` body is read up to
/// ``HTTPSourceConfiguration/maximumBodySize``, parsed by ``HTTPDocumentParser`` (rejected whole when invalid, so the
/// last known good values stay) and handed to `apply`. Failures are retried with ``Backoff``; successes poll again
/// after the jittered poll interval.
public final class HTTPRemoteSource: RemoteSource {
    /// What the last successful fetch left behind, for the next conditional GET.
    private struct Cache {
        var etag: String?
        var revision: String?
        /// The fingerprint of the body last applied: a new ETag on the same bytes is logged at debug only.
        var body: String?
    }

    /// How one attempt ended.
    private enum AttemptEnd {
        /// Fetched (and applied): the status says so.
        case succeeded
        /// Failed: the status has the reason; `retryAfter` when the server asked to wait that long.
        case failed(retryAfter: Duration? = nil)
        /// Cut short because the source stops: the status says nothing of it.
        case interrupted
    }

    /// The outcome of one successful exchange.
    private enum Fetched {
        case notModified
        case document(RemoteSnapshot, etag: String?, body: String)
    }

    /// The configuration this source was made with.
    public let configuration: HTTPSourceConfiguration
    private let httpClient: HTTPClient
    private let clock: any Clock<Duration>
    private let wallClock: WallClock
    private let logger: Logger
    private let cache = Mutex(Cache())
    private let trigger = SyncTrigger()

    /// Creates a source; nothing happens until ``run(applying:status:)``.
    ///
    /// - Parameters:
    ///   - httpClient: The client for requests, owned by the caller (which shuts it down after `run` returned). A
    ///     client from ``makeHTTPClient(configuration:)`` applies the configured connect and read timeouts.
    ///   - clock: The clock for poll and backoff delays.
    ///   - wallClock: The wall clock, for the status times.
    public init(
        configuration: HTTPSourceConfiguration,
        httpClient: HTTPClient,
        clock: any Clock<Duration> = ContinuousClock(),
        wallClock: WallClock = .system,
        logger: Logger
    ) {
        self.configuration = configuration
        self.httpClient = httpClient
        self.clock = clock
        self.wallClock = wallClock
        self.logger = logger
    }

    /// Makes a client whose connect and read timeouts are the configuration's, on the shared event loop group, that
    /// does not retry failed connection attempts itself.
    /// The caller owns it and must `shutdown()` it once the source's `run` returned.
    public static func makeHTTPClient(configuration: HTTPSourceConfiguration) -> HTTPClient {
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.timeout = HTTPClient.Configuration.Timeout(
            connect: .nanoseconds(HTTPUnixTime.nanoseconds(configuration.connectTimeout)),
            read: .nanoseconds(HTTPUnixTime.nanoseconds(configuration.readTimeout))
        )
        // The source follows redirects itself (``HTTPRedirect``), to name in every message the URL it contacted.
        clientConfiguration.redirectConfiguration = .disallow
        // The source retries with its own backoff: a refused connection is a failure at once (and `status` says
        // so), not retried inside the client until the connect timeout.
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
    }

    public var endpointDescription: String { self.configuration.url }

    public func run(
        applying apply: @escaping @Sendable (RemoteSnapshot) async -> RemoteApplyOutcome,
        status: SyncStatusRecorder
    ) async {
        self.trigger.start()
        defer { self.trigger.finish() }
        var failures = 0
        while !Task.isCancelled {
            let waiters = self.trigger.beginAttempt()
            let delay: Duration
            switch await self.attempt(applying: apply, status: status) {
            case .interrupted:
                // Cut short: the status holds the previous outcome, not this attempt's.
                waiters.interrupted()
                status.scheduled(nextAttempt: nil)
                return
            case .succeeded:
                failures = 0
                delay = Backoff.jittered(self.configuration.pollInterval)
            case .failed(let retryAfter):
                failures += 1
                // A server that asks to wait (429, 503 with Retry-After) is left alone that long, up to an hour.
                delay = max(
                    self.configuration.backoff.delay(attempt: failures),
                    min(retryAfter ?? .zero, Self.longestRetryAfter)
                )
            }
            status.scheduled(nextAttempt: Task.isCancelled ? nil : self.wallClock.now() + HTTPUnixTime.seconds(delay))
            // Answered once the status is complete, so that a `sync` reports the next attempt too.
            waiters.finished()
            await self.wait(delay)
        }
        status.scheduled(nextAttempt: nil)
    }

    /// Asks for an attempt now and returns once it ended; see ``RemoteSource/syncNow()``.
    ///
    /// - Throws: ``SyncInterruption`` when the source stops (or had stopped) before the attempt ended, or the
    ///   calling task is cancelled.
    public func syncNow() async throws(SyncInterruption) {
        try await self.trigger.requestAndWait()
    }

    /// Sleeps `delay` on the clock, or less when ``syncNow()`` is called or the task is cancelled.
    private func wait(_ delay: Duration) async {
        let clock = self.clock
        let trigger = self.trigger
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await clock.sleep(for: delay, tolerance: nil) }
            group.addTask { await trigger.waitForRequest() }
            await group.next()
            group.cancelAll()
        }
    }

    /// One fetch: records the outcome in `status` and returns it; records nothing when the source stops first.
    private func attempt(
        applying apply: @Sendable (RemoteSnapshot) async -> RemoteApplyOutcome,
        status: SyncStatusRecorder
    ) async -> AttemptEnd {
        do {
            switch try await self.fetch() {
            case .notModified:
                let revision = self.cache.withLock { $0.revision }
                self.logger.debug("remote document not modified", metadata: ["revision": "\(revision ?? "")"])
                status.succeeded(revision: revision, at: self.wallClock.now())
            case .document(let snapshot, let etag, let body):
                if case .notStored(let reason) = await apply(snapshot) {
                    // Not taken as done: its ETag is not kept, so the next attempt fetches it again rather than
                    // hearing "not modified" while the previous values stay in force.
                    let message =
                        "the document from \(self.configuration.url) (revision \(snapshot.revision)) could not be "
                        + "stored: \(reason)"
                    self.logger.warning("remote sync failed", metadata: ["error": "\(message)"])
                    status.failed(message, at: self.wallClock.now())
                    return .failed()
                }
                let same = self.cache.withLock { cache in
                    defer { (cache.etag, cache.revision, cache.body) = (etag, snapshot.revision, body) }
                    return cache.body == body
                }
                // A server whose ETag changes with every answer (a generated document) would log this each poll.
                self.logger.log(
                    level: same ? .debug : .info,
                    same ? "remote document applied (the same document, under a new ETag)" : "remote document applied",
                    metadata: ["revision": "\(snapshot.revision)", "modules": "\(snapshot.modules.count)"]
                )
                status.succeeded(revision: snapshot.revision, at: self.wallClock.now())
            }
            return .succeeded
        } catch {
            if Task.isCancelled { return .interrupted }
            let message = error.message
            self.logger.warning(
                "remote sync failed",
                metadata: ["url": "\(self.configuration.url)", "error": "\(message)"]
            )
            status.failed(message, at: self.wallClock.now())
            if case .throttled(_, let retryAfter) = error { return .failed(retryAfter: retryAfter) }
            return .failed()
        }
    }

    /// The longest `Retry-After` heeded: a server cannot stop the sync for longer (a `sync` still asks at once).
    static let longestRetryAfter = Duration.seconds(3600)

    /// One conditional GET, with the body read and parsed, within ``HTTPSourceConfiguration/requestTimeout`` from
    /// connecting to the last byte: the client's own deadline ends with the headers, and its read timeout is reset
    /// by every byte, so a server trickling its body would hold the attempt forever.
    private func fetch() async throws(RemoteSyncError) -> Fetched {
        let configuration = self.configuration
        try configuration.validate()
        let request = try self.request()
        let clock = self.clock
        let timedOut = RemoteSyncError.attempt(
            "timeout: no complete response from \(configuration.url) within "
                + "\(HTTPUnixTime.describe(configuration.requestTimeout)) (remote-timeout)"
        )
        let outcome = await withTaskGroup(of: Result<Fetched, RemoteSyncError>?.self) { group in
            group.addTask {
                do throws(RemoteSyncError) {
                    return .success(try await self.exchange(request))
                } catch {
                    return .failure(error)
                }
            }
            group.addTask {
                do {
                    try await clock.sleep(for: configuration.requestTimeout, tolerance: nil)
                } catch {
                    return nil  // cancelled: the exchange ended first, or the source stops
                }
                return .failure(timedOut)
            }
            defer { group.cancelAll() }
            while let next = await group.next() {
                if let result = next { return result }
            }
            return .failure(RemoteSyncError.attempt("cancelled"))
        }
        return try outcome.get()
    }

    /// The conditional GET for the document, with the bearer token and the trusted CAs.
    private func request() throws(RemoteSyncError) -> HTTPClientRequest {
        let configuration = self.configuration
        var request = HTTPClientRequest(url: configuration.url)
        request.method = .GET
        request.headers.add(name: "Accept", value: "application/json")
        let knownETag = self.cache.withLock { $0.etag }
        if let knownETag { request.headers.add(name: "If-None-Match", value: knownETag) }
        if let tokenFile = configuration.bearerTokenFile {
            let token = try HTTPTokenFile.load(tokenFile)
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
        }
        if let caFile = configuration.caFile {
            // Read here rather than handed to NIOSSL as a path: a missing or damaged file is named with its reason,
            // and a FIFO at the path does not block the attempt.
            var tls = request.tlsConfiguration ?? .makeClientConfiguration()
            tls.trustRoots = .certificates(try HTTPCAFile.load(caFile))
            request.tlsConfiguration = tls
        }
        return request
    }

    /// Sends `request` and reads the answer, following up to ``HTTPRedirect/limit`` redirects; ends early, with a
    /// failure, when the task is cancelled. Messages name the URL contacted, and the source's URL when it was
    /// redirected.
    private func exchange(_ first: HTTPClientRequest) async throws(RemoteSyncError) -> Fetched {
        let configuration = self.configuration
        let deadline = NIODeadline.now() + .nanoseconds(HTTPUnixTime.nanoseconds(configuration.requestTimeout))
        var redirect = HTTPRedirect(source: configuration.url)
        var request = first
        while true {
            let url = redirect.contacted
            do {
                let response = try await self.httpClient.execute(request, deadline: deadline, logger: self.logger)
                if HTTPRedirect.isRedirect(response.status.code) {
                    request = try redirect.follow(response, from: request)
                    continue
                }
                switch response.status.code {
                case 304 where request.headers.contains(name: "If-None-Match"):
                    return .notModified
                case 304:
                    // Not modified since what? Nothing was asked conditionally: a broken server or proxy, not a
                    // success.
                    throw RemoteSyncError.attempt(
                        "HTTP 304 (not modified) from \(url) to a request that was not conditional"
                    )
                case 200:
                    let bytes = try await Self.readBody(response, limit: configuration.maximumBodySize, url: url)
                    let etag = response.headers.first(name: "ETag")
                    let fingerprint = Self.fingerprint(bytes)
                    let fallback =
                        etag.flatMap { $0.utf8.count <= HTTPDocumentParser.revisionLimit ? $0 : nil }
                        ?? "sha:\(fingerprint)"
                    let snapshot = try HTTPDocumentParser.parse(bytes, fallbackRevision: fallback, from: url)
                    return .document(snapshot, etag: etag, body: fingerprint)
                case 429, 503:
                    let asked = HTTPRetryAfter.wait(
                        response.headers.first(name: "Retry-After"),
                        now: self.wallClock.now()
                    )
                    guard let asked else { throw RemoteSyncError.attempt("HTTP \(response.status.code) from \(url)") }
                    let waited = min(asked, Self.longestRetryAfter)
                    let wait =
                        asked > Self.longestRetryAfter
                        ? "more than an hour (the next attempt is in an hour, the most heeded)"
                        : asked == .zero ? "no time (a date past)" : HTTPUnixTime.describe(asked)
                    throw RemoteSyncError.throttled(
                        "HTTP \(response.status.code) from \(url), which asks to retry after \(wait)",
                        retryAfter: waited
                    )
                default:
                    throw RemoteSyncError.attempt("HTTP \(response.status.code) from \(url)")
                }
            } catch let error as RemoteSyncError {
                throw error
            } catch let error as HTTPClientError {
                throw Self.describe(error, url: url, configuration: configuration)
            } catch is CancellationError {
                throw RemoteSyncError.attempt("cancelled")
            } catch {
                throw Self.describe(other: error, url: url)
            }
        }
    }

    /// Reads the whole body, failing as soon as it is longer than `limit` (or says it will be).
    private static func readBody(_ response: HTTPClientResponse, limit: Int, url: String) async throws -> [UInt8] {
        let tooLarge = RemoteSyncError.attempt("body larger than \(limit) bytes from \(url)")
        if let length = response.headers.first(name: "Content-Length").flatMap({ Int($0) }), length > limit {
            throw tooLarge
        }
        var bytes: [UInt8] = []
        for try await chunk in response.body {
            guard bytes.count + chunk.readableBytes <= limit else { throw tooLarge }
            bytes.append(contentsOf: chunk.readableBytesView)
        }
        return bytes
    }

    /// A user-facing message for a client error: timeouts name the timeout.
    private static func describe(
        _ error: HTTPClientError,
        url: String,
        configuration: HTTPSourceConfiguration
    ) -> RemoteSyncError {
        let connect = HTTPUnixTime.describe(configuration.connectTimeout)
        let read = HTTPUnixTime.describe(configuration.readTimeout)
        switch error {
        case .connectTimeout, .tlsHandshakeTimeout:
            return RemoteSyncError.attempt("connect timeout (\(connect)) to \(url)")
        case .readTimeout:
            return RemoteSyncError.attempt("read timeout (\(read)) waiting for \(url)")
        case .deadlineExceeded:
            let total = HTTPUnixTime.describe(configuration.requestTimeout)
            return RemoteSyncError.attempt("timeout: no complete response from \(url) within \(total) (remote-timeout)")
        default:
            return RemoteSyncError.attempt("fetching \(url) failed: \(SocketErrorText.describe(error) ?? "\(error)")")
        }
    }

    /// A user-facing message for an error from below the HTTP client (TLS, sockets). A certificate that does not
    /// verify says what to do about it rather than quoting BoringSSL.
    private static func describe(other error: any Error, url: String) -> RemoteSyncError {
        let text = "\(error)"
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            // BoringSSL says only that the chain did not verify: an unknown CA and dates out of range look the same.
            return RemoteSyncError.attempt(
                "TLS handshake with \(url) failed: its certificate does not verify: it is not signed by a trusted CA "
                    + "(set remote-ca-file to the PEM file of the CA that signed it), or it has expired or is not valid "
                    + "yet (see its dates: openssl s_client -connect HOST:PORT </dev/null | openssl x509 -noout -dates)"
            )
        }
        if text.contains("failedToValidateHostname") {
            return RemoteSyncError.attempt(
                "TLS handshake with \(url) failed: the certificate is not for this host name"
            )
        }
        return RemoteSyncError.attempt("fetching \(url) failed: \(SocketErrorText.describe(error) ?? text)")
    }

    /// A 64-bit FNV-1a hash of `bytes` in hex, the revision of a document with neither `revision` nor ETag.
    private static func fingerprint(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

import AsyncHTTPClient
import NIOCore
import SettingsAPI

/// The two calls of etcd v3's JSON gateway (`/v3/kv/range` and `/v3/watch`, plain HTTP, keys and values base64)
/// that the source needs.
struct EtcdGatewayClient: Sendable {
    /// One change seen by a watch.
    enum Event: Sendable, Equatable {
        case put(key: [UInt8], value: [UInt8], modRevision: Int64)
        case delete(key: [UInt8], modRevision: Int64)
    }

    /// How a watch ended without an error.
    enum WatchEnd: Sendable, Equatable {
        /// etcd compacted the revision the watch started from; everything up to this revision is gone.
        case compacted(revision: Int64)
    }

    let httpClient: HTTPClient
    /// The largest range answer, and watch message, read.
    let maximumResponseSize: Int

    /// Reads every key in `[key, rangeEnd)` from `endpoint` within `timeout`.
    func range(
        endpoint: (host: String, port: Int),
        key: [UInt8],
        rangeEnd: [UInt8],
        timeout: Duration
    ) async throws -> (revision: Int64, pairs: [(key: [UInt8], value: [UInt8])]) {
        let body: JSONValue = [
            "key": .string(EtcdBase64.encode(key)),
            "range_end": .string(EtcdBase64.encode(rangeEnd)),
        ]
        let request = Self.request(endpoint: endpoint, path: "/v3/kv/range", body: body)
        let (response, bytes) = try await Self.exchange(
            request,
            within: timeout,
            limit: self.maximumResponseSize,
            what: "range",
            from: endpoint,
            self.httpClient
        )
        guard response.status == .ok else {
            throw Self.failure("range", status: response.status.code, message: Self.errorMessage(bytes))
        }
        let document = try Self.parse(Array(buffer: bytes), what: "range response")
        let revision = try Self.headerRevision(of: document, what: "range")
        // What the answer lists must be every key: a member (or a proxy) that answers otherwise is not believed, or
        // every fleet value and lock would be dropped as if the fleet had removed them.
        let listed: [JSONValue]
        // etcd leaves `kvs` out when there is none: an explicit null is not its answer.
        switch document["kvs"] {
        case nil: listed = []
        case .array(let kvs): listed = kvs
        case let other?: throw RemoteSyncError.attempt("range: kvs is not a list but \(other.serialized().prefix(40))")
        }
        if document["more"]?.boolValue == true {
            throw RemoteSyncError.attempt("range: the answer says more keys follow (more: true), none was asked to")
        }
        let count = document["count"].map { Self.int64($0) } ?? 0
        guard let count, count == listed.count else {
            throw RemoteSyncError.attempt(
                "range: the answer counts \(document["count"]?.serialized().prefix(40) ?? "none") keys but lists"
                    + " \(listed.count)"
            )
        }
        var pairs: [(key: [UInt8], value: [UInt8])] = []
        for kv in listed {
            guard let key = kv["key"]?.stringValue.flatMap(EtcdBase64.decode) else {
                throw RemoteSyncError.attempt("range: a key is missing or not base64")
            }
            guard let value = EtcdBase64.decode(kv["value"]?.stringValue ?? "") else {
                throw RemoteSyncError.attempt("range: a value is not base64")
            }
            pairs.append((key, value))
        }
        return (revision, pairs)
    }

    /// Counts the keys in `[key, rangeEnd)` on `endpoint` within `timeout`, with a linearizable read: only a member
    /// that is up and still part of its cluster's quorum answers. Returns the cluster's revision.
    func probe(
        endpoint: (host: String, port: Int),
        key: [UInt8],
        rangeEnd: [UInt8],
        timeout: Duration
    ) async throws -> Int64 {
        let body: JSONValue = [
            "key": .string(EtcdBase64.encode(key)),
            "range_end": .string(EtcdBase64.encode(rangeEnd)),
            "count_only": true,
        ]
        let request = Self.request(endpoint: endpoint, path: "/v3/kv/range", body: body)
        let (response, bytes) = try await Self.exchange(
            request,
            within: timeout,
            limit: 1 << 16,
            what: "probe",
            from: endpoint,
            self.httpClient
        )
        guard response.status == .ok else {
            throw Self.failure("probe", status: response.status.code, message: Self.errorMessage(bytes))
        }
        let document = try Self.parse(Array(buffer: bytes), what: "probe response")
        return try Self.headerRevision(of: document, what: "probe")
    }

    /// Watches `[key, rangeEnd)` on `endpoint` from `startRevision`, calling `connected` once etcd created the watch
    /// and `events` with each batch (with the header revision), until the stream ends.
    ///
    /// - Returns: How the watch ended when etcd ended it on purpose (compaction).
    /// - Throws: When the connection fails, the stream ends, or etcd answers with an error.
    func watch(
        endpoint: (host: String, port: Int),
        key: [UInt8],
        rangeEnd: [UInt8],
        startRevision: Int64,
        timeout: Duration,
        connected: @Sendable () async -> Void,
        events: @Sendable (_ revision: Int64, _ events: [Event]) async -> Void
    ) async throws -> WatchEnd {
        let body: JSONValue = [
            "create_request": [
                "key": .string(EtcdBase64.encode(key)),
                "range_end": .string(EtcdBase64.encode(rangeEnd)),
                "start_revision": .string(String(startRevision)),
            ]
        ]
        let request = Self.request(endpoint: endpoint, path: "/v3/watch", body: body)
        // The timeout bounds the connection and the response head only; the body streams for as long as it lasts.
        let response = try await self.httpClient.execute(request, timeout: Self.timeAmount(timeout))
        guard response.status == .ok else {
            let limit = 1 << 16
            let bytes: ByteBuffer
            do {
                bytes = try await response.body.collect(upTo: limit)
            } catch is NIOTooManyBytesError {
                throw RemoteSyncError.attempt(
                    "watch: HTTP \(response.status.code), with an error answer larger than "
                        + "\(ByteCountText.describe(limit)) from \(Self.authority(endpoint))"
                )
            }
            throw Self.failure("watch", status: response.status.code, message: Self.errorMessage(bytes))
        }
        var splitter = EtcdJSONStreamSplitter(
            maximumObjectSize: self.maximumResponseSize,
            from: Self.authority(endpoint)
        )
        for try await chunk in response.body {
            for object in try splitter.append(chunk.readableBytesView) {
                let message = try Self.parse(object, what: "watch message")
                guard let result = message["result"] else {
                    throw RemoteSyncError.attempt("watch: \(Self.gatewayMessage(message))")
                }
                if let compacted = Self.int64(result["compact_revision"]), compacted > 0 {
                    return .compacted(revision: compacted)
                }
                if result["canceled"]?.boolValue == true {
                    let reason = result["cancel_reason"]?.stringValue ?? "no reason given"
                    throw RemoteSyncError.attempt("watch: canceled by etcd: \(reason)")
                }
                if result["created"]?.boolValue == true {
                    await connected()
                }
                let batch = try Self.events(in: result)
                if !batch.isEmpty {
                    guard let revision = Self.int64(result["header"]?["revision"]) else {
                        throw RemoteSyncError.attempt("watch: an event batch has no header revision")
                    }
                    await events(revision, batch)
                }
            }
        }
        throw RemoteSyncError.attempt("watch: the stream ended")
    }

    /// The events of one watch response.
    private static func events(in result: JSONValue) throws -> [Event] {
        var batch: [Event] = []
        let events: [JSONValue]
        switch result["events"] {
        case nil, .null: events = []
        case .array(let list): events = list
        case let other?:
            throw RemoteSyncError.attempt("watch: events is not a list but \(other.serialized().prefix(40))")
        }
        for event in events {
            guard let kv = event["kv"], let encoded = kv["key"]?.stringValue else {
                throw RemoteSyncError.attempt("watch: an event has no key")
            }
            guard let key = EtcdBase64.decode(encoded) else {
                throw RemoteSyncError.attempt("watch: an event's key is not base64")
            }
            let revision = Self.int64(kv["mod_revision"]) ?? 0
            switch event["type"]?.stringValue ?? "PUT" {
            case "PUT":
                guard let value = EtcdBase64.decode(kv["value"]?.stringValue ?? "") else {
                    throw RemoteSyncError.attempt("watch: a value is not base64")
                }
                batch.append(.put(key: key, value: value, modRevision: revision))
            case "DELETE":
                batch.append(.delete(key: key, modRevision: revision))
            case let other:
                throw RemoteSyncError.attempt("watch: unknown event type '\(other)'")
            }
        }
        return batch
    }

    /// A POST of `body` to `path` on `endpoint`.
    private static func request(
        endpoint: (host: String, port: Int),
        path: String,
        body: JSONValue
    )
        -> HTTPClientRequest
    {
        let host = endpoint.host.contains(":") ? "[\(endpoint.host)]" : endpoint.host
        var request = HTTPClientRequest(url: "http://\(host):\(endpoint.port)\(path)")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: body.serialized()))
        return request
    }

    /// Parses a gateway response.
    private static func parse(_ bytes: [UInt8], what: String) throws -> JSONValue {
        do {
            return try JSONValue(parsing: bytes)
        } catch {
            throw RemoteSyncError.attempt("the \(what) is not JSON: \(error)")
        }
    }

    /// The message of an error answer: the gateway's error document's, or none when it is not one (a proxy's HTML
    /// page).
    private static func errorMessage(_ bytes: ByteBuffer) -> String {
        (try? JSONValue(parsing: Array(buffer: bytes))).map(Self.gatewayMessage) ?? ""
    }

    /// `host:port`, or `[v6]:port`, for messages.
    static func authority(_ endpoint: (host: String, port: Int)) -> String {
        endpoint.host.contains(":") ? "[\(endpoint.host)]:\(endpoint.port)" : "\(endpoint.host):\(endpoint.port)"
    }

    /// A gateway's error answer in words: one that says its connection to etcd is closing comes from a member that
    /// is stopping ("HTTP 408: grpc: the client connection is closing", for as long as it takes to stop).
    static func failure(_ what: String, status: UInt, message: String) -> RemoteSyncError {
        if message.contains("the client connection is closing") || message.contains("transport is closing") {
            return .attempt("\(what): the member is shutting down (HTTP \(status): \(message))")
        }
        return .attempt(message.isEmpty ? "\(what): HTTP \(status)" : "\(what): HTTP \(status): \(message)")
    }

    /// The message of a gateway error document (`{"error": "…", "message": "…", "code": 2}`).
    private static func gatewayMessage(_ document: JSONValue) -> String {
        let error = document["error"]
        return error?["message"]?.stringValue ?? document["message"]?.stringValue ?? error?.stringValue
            ?? document.serialized()
    }

    /// An int64 field, which the gateway writes as a string.
    /// The cluster's revision in a response's header: a positive 64-bit number, as etcd counts them from 1.
    private static func headerRevision(of document: JSONValue, what: String) throws(RemoteSyncError) -> Int64 {
        guard let value = document["header"]?["revision"] else {
            throw RemoteSyncError.attempt("\(what): the response has no header revision")
        }
        guard let revision = Self.int64(value), revision > 0 else {
            throw RemoteSyncError.attempt(
                "\(what): the header revision \(value.serialized().prefix(40)) is not a positive 64-bit number"
            )
        }
        return revision
    }

    private static func int64(_ value: JSONValue?) -> Int64? {
        switch value {
        case .string(let text): Int64(text)
        case .int(let number): number
        default: nil
        }
    }

    /// Sends `request` and reads its whole body (up to `limit` bytes) within `timeout`, from connecting to the last
    /// byte: the client's own timeout ends with the response head, and a member trickling its body would hold the
    /// read for as long as it trickles. A longer body fails in words: `range answer larger than 64 MiB from h1:2379`.
    static func exchange(
        _ request: HTTPClientRequest,
        within timeout: Duration,
        limit: Int,
        what: String,
        from endpoint: (host: String, port: Int),
        _ client: HTTPClient
    ) async throws -> (HTTPClientResponse, ByteBuffer) {
        try await withThrowingTaskGroup(of: (HTTPClientResponse, ByteBuffer)?.self) { group in
            group.addTask {
                let response = try await client.execute(request, timeout: Self.timeAmount(timeout))
                do {
                    return (response, try await response.body.collect(upTo: limit))
                } catch is NIOTooManyBytesError {
                    throw RemoteSyncError.attempt(
                        "\(what) answer larger than \(ByteCountText.describe(limit)) from \(Self.authority(endpoint))"
                    )
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            guard let exchanged = first else {
                throw RemoteSyncError.attempt("\(what): no complete response within \(timeout)")
            }
            return exchanged
        }
    }

    /// `duration` for NIO.
    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

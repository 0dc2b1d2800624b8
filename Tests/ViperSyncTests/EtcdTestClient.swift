import AsyncHTTPClient
import NIOCore
import SettingsAPI

@testable import ViperSync

/// Writes to etcd through its JSON gateway, for the tests: put, delete, compact; retries until a deadline
/// (a cluster may be electing a leader).
struct EtcdTestClient {
    /// The client ports to try, in order.
    var ports: [Int]

    /// Puts `value` (raw text, usually JSON) at `key`; returns the new revision.
    @discardableResult
    func put(_ key: String, _ value: String) async throws -> Int64 {
        let body: JSONValue = [
            "key": .string(EtcdBase64.encode(Array(key.utf8))),
            "value": .string(EtcdBase64.encode(Array(value.utf8))),
        ]
        return try await self.call("/v3/kv/put", body)
    }

    /// Deletes `key`; returns the new revision.
    @discardableResult
    func delete(_ key: String) async throws -> Int64 {
        try await self.call("/v3/kv/deleterange", ["key": .string(EtcdBase64.encode(Array(key.utf8)))])
    }

    /// Compacts the history up to `revision`.
    func compact(_ revision: Int64) async throws {
        _ = try await self.call("/v3/kv/compaction", ["revision": .string(String(revision)), "physical": true])
    }

    /// POSTs `body`, trying each port in turn for up to 10 s; returns the header revision.
    private func call(_ path: String, _ body: JSONValue) async throws -> Int64 {
        let deadline = ContinuousClock.now + .seconds(10)
        var attempt = 0
        var lastError = ""
        while ContinuousClock.now < deadline {
            let port = self.ports[attempt % self.ports.count]
            attempt += 1
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
            request.method = .POST
            request.body = .bytes(ByteBuffer(string: body.serialized()))
            do {
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
                let bytes = try await response.body.collect(upTo: 1 << 20)
                let document = try JSONValue(parsing: Array(buffer: bytes))
                if response.status == .ok {
                    switch document["header"]?["revision"] {
                    case .string(let text): return Int64(text) ?? 0
                    case .int(let number): return number
                    default: return 0
                    }
                }
                lastError = "HTTP \(response.status.code): \(document.serialized())"
            } catch {
                lastError = "\(error)"
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw EtcdTestFailure("\(path) failed for 10 s: \(lastError)")
    }
}

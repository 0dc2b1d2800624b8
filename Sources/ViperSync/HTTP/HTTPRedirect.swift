import AsyncHTTPClient

import struct Foundation.URL

/// The redirects of one fetch, followed by the source rather than by the HTTP client, so that every message names
/// the URL actually contacted, and a redirect that cannot be followed says why: a cycle, too many, a target that is
/// not an `http(s)` URL, or plain HTTP after HTTPS (the document can lock keys: it must come over TLS).
struct HTTPRedirect {
    /// The most redirects followed in one fetch.
    static let limit = 5

    /// The source's URL.
    let source: String
    /// The URLs fetched so far, the source's first.
    private(set) var visited: [String]

    /// Starts at the source's URL.
    init(source: String) {
        self.source = source
        self.visited = [source]
    }

    /// The URL fetched now, for messages: `URL`, or `URL (redirected from SOURCE)`.
    var contacted: String {
        let last = self.visited[self.visited.count - 1]
        return self.visited.count == 1 ? last : "\(last) (redirected from \(self.source))"
    }

    /// Whether an HTTP status code asks to fetch another URL.
    static func isRedirect(_ code: UInt) -> Bool {
        [301, 302, 303, 307, 308].contains(code)
    }

    /// The request for the URL `response` (an answer to `request`) redirects to. The bearer token goes only to the
    /// same origin (scheme, host and port).
    mutating func follow(
        _ response: HTTPClientResponse,
        from request: HTTPClientRequest
    ) throws(RemoteSyncError) -> HTTPClientRequest {
        let from = self.contacted
        let code = response.status.code
        guard let target = response.headers.first(name: "Location"), !target.isEmpty else {
            throw .attempt("HTTP \(code) (a redirect) from \(from) without a Location to go to")
        }
        // As messages repeat it: a user and password the server put there are not shown to every local user.
        let location = URLAuthority.hidingUserInfo(target)
        guard let base = URL(string: request.url), let target = URL(string: target, relativeTo: base)?.absoluteURL
        else {
            throw .attempt("invalid redirect target: \(from) redirected to '\(location)', which is not a URL")
        }
        let scheme = target.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https", target.host?.isEmpty == false else {
            throw .attempt(
                "invalid redirect target: \(from) redirected to '\(location)', not an http(s) URL; not followed"
            )
        }
        let next = target.absoluteString
        // Read as strictly as the source's own URL: a port beyond 65535 stops the HTTP client with a trap.
        do {
            try HTTPSourceConfiguration(url: next).validate()
        } catch {
            throw .attempt("invalid redirect target: \(from) redirected to '\(location)': \(error.message)")
        }
        if self.source.lowercased().hasPrefix("https:") && scheme == "http" {
            throw .attempt("\(from) redirected to \(next), plain HTTP: refused (the document must come over TLS)")
        }
        guard !self.visited.contains(next) else {
            throw .attempt("redirect cycle: \(from) redirected to \(next), fetched before; fix the redirects there")
        }
        guard self.visited.count <= Self.limit else {
            throw .attempt("too many redirects: \(self.source) was redirected more than \(Self.limit) times")
        }
        self.visited.append(next)
        var redirected = request
        redirected.url = next
        if !Self.sameOrigin(base, target) { redirected.headers.remove(name: "Authorization") }
        return redirected
    }

    /// Whether two URLs have the same scheme, host and port.
    private static func sameOrigin(_ lhs: URL, _ rhs: URL) -> Bool {
        func port(_ url: URL) -> Int? { url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80) }
        return lhs.scheme?.lowercased() == rhs.scheme?.lowercased() && lhs.host?.lowercased() == rhs.host?.lowercased()
            && port(lhs) == port(rhs)
    }
}

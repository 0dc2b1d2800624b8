/// The `host[:port]` or `[v6][:port]` part of a remote URL, read strictly: a URL the daemon cannot use is refused
/// when the configuration is read (exit status 2 at start), never found out by the HTTP client at its first fetch.
struct URLAuthority: Sendable, Hashable {
    /// Why an authority cannot be used, e.g. `'h:99999': the port must be a number from 1 to 65535`.
    struct Problem: Error, Sendable, Hashable {
        var reason: String
    }

    /// The host name or address, without the brackets of an IPv6 address.
    var host: String
    /// The port, when one is given.
    var port: Int?

    /// `url` (a URL, or the authority of one) with the user and password of its authority, if any, replaced by
    /// `***`, for messages: `settingsctl status` shows them to every local user, and the logs keep them.
    static func hidingUserInfo(_ url: some StringProtocol) -> String {
        let bytes = Array(url.utf8)
        // The authority starts after the first "//" (of `scheme://`), or at the start of an authority alone, and
        // ends where the path, a query or a fragment starts.
        let slashes = bytes.indices.dropLast().first {
            bytes[$0] == UInt8(ascii: "/") && bytes[$0 + 1] == UInt8(ascii: "/")
        }
        let start = slashes.map { $0 + 2 } ?? 0
        let end = bytes[start...].firstIndex { "/?#".utf8.contains($0) } ?? bytes.endIndex
        guard let at = bytes[start..<end].lastIndex(of: UInt8(ascii: "@")) else { return String(url) }
        return String(decoding: bytes[..<start], as: UTF8.self) + "***" + String(decoding: bytes[at...], as: UTF8.self)
    }

    /// Reads `text`, the part between `scheme://` and the path.
    init(_ text: Substring) throws(Problem) {
        if text.contains("@") {
            // Not repeated: the message is shown where the URL would have been.
            throw Problem(
                reason: "'\(Self.hidingUserInfo(text))': a user or password in the URL is not supported (it would be "
                    + "shown to every local user by settingsctl status and in the logs); give a token with "
                    + "remote-token-file"
            )
        }
        let host: Substring
        let portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                throw Problem(reason: "'\(text)': an unclosed '[' in an IPv6 address")
            }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if after.isEmpty {
                portText = nil
            } else if after.hasPrefix(":") {
                portText = after.dropFirst()
            } else {
                throw Problem(reason: "'\(text)': expected ':PORT' after ']'")
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw Problem(reason: "'\(text)': '\(host)' is not an IPv6 address")
            }
        } else if let colon = text.firstIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        } else {
            host = text
            portText = nil
        }
        guard !host.isEmpty else { throw Problem(reason: "'\(text)': the host is empty") }
        if !text.hasPrefix("["),
            let bad = host.first(where: { !($0.isASCII && ($0.isLetter || $0.isNumber || "-._~%".contains($0))) })
        {
            throw Problem(reason: "'\(text)': the host may not contain '\(bad)'")
        }
        self.host = String(host)
        guard let portText else { return }
        guard portText.allSatisfy(\.isASCIIDigitCharacter), let port = Int(portText), (1...65535).contains(port)
        else {
            throw Problem(reason: "'\(text)': the port must be a number from 1 to 65535")
        }
        self.port = port
    }
}

extension Character {
    /// `0` to `9`, and nothing else that counts as a digit.
    fileprivate var isASCIIDigitCharacter: Bool { ("0"..."9").contains(self) }
}

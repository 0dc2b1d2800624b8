public import SettingsAPI

/// Where a handler writes the replies to one call.
///
/// A call without `more` gets exactly one reply. A call with `more` gets any number of replies with
/// `continues: true`, then a last one without it. After the last reply, further replies throw
/// ``VarlinkServerError/replyAfterLastReply``. Replies to a `oneway` call are accepted and dropped.
public protocol VarlinkReplySink: Sendable {
    /// Sends one reply.
    ///
    /// - Parameters:
    ///   - parameters: The reply's parameters; must be an object.
    ///   - continues: Whether more replies follow; only allowed when the call had `more`. A `continues` reply
    ///     to a call without `more` is a programming error: it is logged and sent as the last reply.
    /// - Throws: ``VarlinkServerError`` on misuse, or the transport's error when the peer went away.
    func reply(_ parameters: JSONValue, continues: Bool) async throws

    /// Sends the last (or only) reply, whose parameters are already JSON text: an object, as
    /// ``SettingsAPI/JSONValueEncoder/encodeText(_:)`` writes it. The server's own sink sends the bytes as they
    /// are; the default implementation parses them and calls ``reply(_:continues:)``.
    func reply(encodedParameters: [UInt8]) async throws
}

extension VarlinkReplySink {
    public func reply(encodedParameters: [UInt8]) async throws {
        let parameters = try JSONValue(parsing: encodedParameters)
        try await self.reply(parameters, continues: false)
    }

    /// Sends the last (or only) reply to a call.
    public func reply(_ parameters: JSONValue) async throws {
        try await self.reply(parameters, continues: false)
    }
}

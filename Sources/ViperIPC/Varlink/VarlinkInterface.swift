public import ViperSettings

/// An interface the server serves besides `org.varlink.service`.
///
/// The server routes a call to the interface whose ``name`` is the call's method up to its last dot, after
/// checking the bare method name against ``methods``; unknown names get `InterfaceNotFound` or
/// `MethodNotFound` without reaching the interface.
///
/// Calls on one connection reach ``handle(_:peer:replies:)`` one after another; calls on different
/// connections run concurrently.
public protocol VarlinkInterface: Sendable {
    /// The interface name, e.g. `io.viper.settings`.
    var name: String { get }
    /// The interface definition (IDL text) served by `org.varlink.service.GetInterfaceDescription`.
    var description: String { get }
    /// The bare names of the methods this interface implements, e.g. `["Get", "Set"]`.
    var methods: Set<String> { get }

    /// Handles one call.
    ///
    /// Send replies through `replies` (see ``VarlinkReplySink``). Throw a ``VarlinkError`` to send an error
    /// reply, which ends the call. Any other error is logged and the connection is closed, since a Varlink
    /// client cannot be told about an undeclared error. Returning without the last reply to a call that
    /// expects one is a programming error and closes the connection too.
    ///
    /// Streaming calls (`more: true`) are cancelled when the server shuts down gracefully; the connection then
    /// closes. Calls without `more` run to completion first.
    ///
    /// - Parameters:
    ///   - call: The call, with its fully qualified method name and its parameters.
    ///   - peer: The credentials of the connected client, for authorization.
    ///   - replies: Where to send the replies.
    func handle(_ call: VarlinkCall, peer: Caller, replies: any VarlinkReplySink) async throws

    /// The parameters (a JSON object's text) of the only reply to `call`, when the interface can answer it on the
    /// spot, without waiting and for any caller; `nil` otherwise, and then ``handle(_:peer:replies:)`` gets the
    /// call. The server asks this on the connection's event loop, before handing the call on: it must be quick
    /// and never block. The default is `nil`.
    func replyNow(to call: VarlinkCall) -> [UInt8]?

    /// A number that grows whenever a reply of ``replyNow(to:)`` may change, read before it; `nil` (the default)
    /// when its replies must not be reused. The server keeps the replies it made on the spot by the exact bytes of
    /// their calls, and sends one again to the same bytes while this number has not changed. It is read on the event
    /// loop for every such call: it must be quick.
    var replyNowGeneration: UInt64? { get }
}

extension VarlinkInterface {
    public func replyNow(to call: VarlinkCall) -> [UInt8]? { nil }

    public var replyNowGeneration: UInt64? { nil }
}

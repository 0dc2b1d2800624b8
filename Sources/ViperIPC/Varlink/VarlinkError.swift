public import SettingsAPI

/// A failure a handler throws to send a Varlink error reply.
///
/// The error reply is always the last reply of a call. `name` must be an error declared in an interface
/// (the handler's own, or `org.varlink.service`); `parameters` carries the error's fields as an object.
public struct VarlinkError: Error, Sendable, Hashable {
    /// The fully qualified error name, e.g. `org.varlink.service.InvalidParameter`.
    public var name: String
    /// The error's fields; always an object.
    public var parameters: JSONValue

    /// Creates an error reply. A `parameters` value that is not an object is sent as an empty object.
    public init(name: String, parameters: JSONValue = .object([:])) {
        self.name = name
        self.parameters = parameters
    }
}

extension VarlinkError {
    /// The name of the interface every Varlink service implements.
    public static let serviceInterface = "org.varlink.service"

    /// `org.varlink.service.MethodNotFound`: the interface does not declare `method` (fully qualified).
    public static func methodNotFound(_ method: String) -> VarlinkError {
        VarlinkError(name: "\(serviceInterface).MethodNotFound", parameters: ["method": .string(method)])
    }

    /// `org.varlink.service.InvalidParameter`: the parameter named `name` (a bare field name) is missing or invalid.
    public static func invalidParameter(_ name: String) -> VarlinkError {
        VarlinkError(name: "\(serviceInterface).InvalidParameter", parameters: ["parameter": .string(name)])
    }

    /// `org.varlink.service.InterfaceNotFound`: the service does not implement the interface `name`.
    public static func interfaceNotFound(_ name: String) -> VarlinkError {
        VarlinkError(name: "\(serviceInterface).InterfaceNotFound", parameters: ["interface": .string(name)])
    }

    /// `org.varlink.service.MethodNotImplemented`: the interface declares `method` but the service does not implement it.
    public static func methodNotImplemented(_ method: String) -> VarlinkError {
        VarlinkError(name: "\(serviceInterface).MethodNotImplemented", parameters: ["method": .string(method)])
    }

    /// `org.varlink.service.ExpectedMore`: the method must be called with `more: true`.
    public static func expectedMore() -> VarlinkError {
        VarlinkError(name: "\(serviceInterface).ExpectedMore")
    }

    /// `org.varlink.service.PermissionDenied`: the peer may not call this method.
    public static func permissionDenied() -> VarlinkError {
        VarlinkError(name: "\(serviceInterface).PermissionDenied")
    }
}

import SettingsAPI
import ViperSettings

/// `org.varlink.service`, which every Varlink service implements: `GetInfo` and `GetInterfaceDescription`.
struct VarlinkServiceInterface: VarlinkInterface {
    /// The interface definition of `org.varlink.service`, as the Varlink specification gives it.
    static let interfaceDescription = """
        # The Varlink Service Interface is provided by every varlink service. It
        # describes the service and the interfaces it implements.
        interface org.varlink.service

        # Get a list of all the interfaces a service provides and information
        # about the implementation.
        method GetInfo() -> (
          vendor: string,
          product: string,
          version: string,
          url: string,
          interfaces: []string
        )

        # Get the description of an interface that is implemented by this service.
        method GetInterfaceDescription(interface: string) -> (description: string)

        # The requested interface was not found.
        error InterfaceNotFound (interface: string)

        # The requested method was not found
        error MethodNotFound (method: string)

        # The interface defines the requested method, but the service does not
        # implement it.
        error MethodNotImplemented (method: string)

        # One of the passed parameters is invalid.
        error InvalidParameter (parameter: string)

        # Client is denied access
        error PermissionDenied ()

        # Method is expected to be called with 'more' set to true, but wasn't
        error ExpectedMore ()

        """

    let name = VarlinkError.serviceInterface
    let description = Self.interfaceDescription
    let methods: Set<String> = ["GetInfo", "GetInterfaceDescription"]

    /// The `GetInfo` reply, computed once.
    private let info: JSONValue
    /// The descriptions of all served interfaces, this one included, by interface name.
    private let descriptions: [String: String]

    /// Creates the service interface of a server with this configuration serving `interfaces` besides this one.
    init(configuration: VarlinkServerConfiguration, interfaces: [any VarlinkInterface]) {
        let names = [VarlinkError.serviceInterface] + interfaces.map(\.name)
        self.info = [
            "vendor": .string(configuration.vendor),
            "product": .string(configuration.product),
            "version": .string(configuration.version),
            "url": .string(configuration.url),
            "interfaces": .array(names.map { .string($0) }),
        ]
        var descriptions = [VarlinkError.serviceInterface: Self.interfaceDescription]
        for interface in interfaces {
            descriptions[interface.name] = interface.description
        }
        self.descriptions = descriptions
    }

    func handle(_ call: VarlinkCall, peer: Caller, replies: any VarlinkReplySink) async throws {
        switch call.methodName {
        case "GetInfo":
            try call.refuseParameters(except: [])
            try await replies.reply(self.info)
        case "GetInterfaceDescription":
            guard case .string(let interface) = call.parameters["interface"] else {
                throw VarlinkError.invalidParameter("interface")
            }
            try call.refuseParameters(except: ["interface"])
            guard let description = self.descriptions[interface] else {
                throw VarlinkError.interfaceNotFound(interface)
            }
            try await replies.reply(["description": .string(description)])
        default:
            throw VarlinkError.methodNotFound(call.method)
        }
    }
}

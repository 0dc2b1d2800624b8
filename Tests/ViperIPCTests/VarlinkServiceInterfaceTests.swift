import SettingsAPI
import Testing

@testable import ViperIPC

@Suite("org.varlink.service", .timeLimit(.minutes(1)))
struct VarlinkServiceInterfaceTests {
    @Test("GetInfo reports the configuration and every interface")
    func getInfo() async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let reply = try await client.call(#"{"method": "org.varlink.service.GetInfo"}"#)
                #expect(reply["error"] == nil)
                #expect(
                    reply["parameters"]
                        == [
                            "vendor": "Viper",
                            "product": "viper-settings-tests",
                            "version": "1.2.3",
                            "url": "https://example.org/viper",
                            "interfaces": ["org.varlink.service", "org.example.test"],
                        ]
                )
            }
        }
    }

    @Test("GetInterfaceDescription serves the standard org.varlink.service text")
    func serviceDescription() async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let reply = try await client.call(
                    #"{"method": "org.varlink.service.GetInterfaceDescription", "parameters": {"interface": "org.varlink.service"}}"#
                )
                let description = try #require(reply["parameters"]?["description"]?.stringValue)
                #expect(description == VarlinkServiceInterface.interfaceDescription)
                #expect(description.contains("\ninterface org.varlink.service\n"))
                for error in [
                    "error InterfaceNotFound (interface: string)", "error MethodNotFound (method: string)",
                    "error MethodNotImplemented (method: string)", "error InvalidParameter (parameter: string)",
                    "error PermissionDenied ()", "error ExpectedMore ()",
                ] {
                    #expect(description.contains(error))
                }
                #expect(
                    description.contains("method GetInterfaceDescription(interface: string) -> (description: string)")
                )
            }
        }
    }

    @Test("GetInterfaceDescription serves a served interface's text")
    func interfaceDescription() async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let reply = try await client.call(
                    #"{"method": "org.varlink.service.GetInterfaceDescription", "parameters": {"interface": "org.example.test"}}"#
                )
                #expect(reply["parameters"] == ["description": .string(server.interface.description)])
            }
        }
    }

    @Test("GetInterfaceDescription of an unknown interface is InterfaceNotFound")
    func unknownInterfaceDescription() async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let reply = try await client.call(
                    #"{"method": "org.varlink.service.GetInterfaceDescription", "parameters": {"interface": "org.example.nope"}}"#
                )
                #expect(reply["error"] == "org.varlink.service.InterfaceNotFound")
                #expect(reply["parameters"] == ["interface": "org.example.nope"])
            }
        }
    }

    @Test(
        "GetInterfaceDescription without a string interface is InvalidParameter",
        arguments: [#"{}"#, #"{"interface": 7}"#, #"{"interface": null}"#, #"{"other": "org.example.test"}"#]
    )
    func descriptionWithoutInterface(parameters: String) async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let reply = try await client.call(
                    #"{"method": "org.varlink.service.GetInterfaceDescription", "parameters": \#(parameters)}"#
                )
                #expect(reply["error"] == "org.varlink.service.InvalidParameter")
                #expect(reply["parameters"] == ["parameter": "interface"])
            }
        }
    }

    @Test(
        "A parameter the method does not take is InvalidParameter naming it, as systemd's servers answer",
        arguments: [
            (#"{"method": "org.varlink.service.GetInfo", "parameters": {"verbose": true}}"#, "verbose"),
            (
                #"{"method": "org.varlink.service.GetInterfaceDescription", "parameters": {"interface": "org.varlink.service", "x": null}}"#,
                "x"
            ),
        ]
    )
    func unknownParameter(call: String, parameter: String) async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let reply = try await client.call(call)
                #expect(reply["error"] == "org.varlink.service.InvalidParameter")
                #expect(reply["parameters"] == ["parameter": .string(parameter)])
            }
        }
    }

    @Test("An unknown method of org.varlink.service is MethodNotFound")
    func unknownServiceMethod() async throws {
        try await TestServer.with { server in
            try await TestVarlinkClient.withConnection(to: server.socketPath) { client in
                let reply = try await client.call(#"{"method": "org.varlink.service.Shutdown"}"#)
                #expect(reply["error"] == "org.varlink.service.MethodNotFound")
                #expect(reply["parameters"] == ["method": "org.varlink.service.Shutdown"])
            }
        }
    }
}

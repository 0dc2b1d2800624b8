import NIOCore
import SettingsAPI
import Testing

@testable import ViperIPC

@Suite("Varlink message parts", .timeLimit(.minutes(1)))
struct VarlinkUnitTests {
    @Test("The frame decoder splits on NUL and keeps partial messages")
    func frameDecoder() throws {
        var decoder = VarlinkFrameDecoder(maximumMessageSize: 16)
        var buffer = ByteBuffer(string: "ab\0cd")
        #expect(try decoder.nextFrame(from: &buffer) == ByteBuffer(string: "ab"))
        #expect(try decoder.nextFrame(from: &buffer) == nil)
        buffer.writeString("e\0\0f")
        #expect(try decoder.nextFrame(from: &buffer) == ByteBuffer(string: "cde"))
        #expect(try decoder.nextFrame(from: &buffer) == ByteBuffer(string: ""))
        #expect(try decoder.nextFrame(from: &buffer) == nil)
        #expect(buffer == ByteBuffer(string: "f"))
    }

    @Test("The frame decoder enforces the size limit on complete and partial messages")
    func frameDecoderLimit() throws {
        var decoder = VarlinkFrameDecoder(maximumMessageSize: 3)
        var atLimit = ByteBuffer(string: "abc\0")
        #expect(try decoder.nextFrame(from: &atLimit) == ByteBuffer(string: "abc"))
        var complete = ByteBuffer(string: "abcd\0")
        #expect(throws: VarlinkFrameTooLargeError(size: 4, limit: 3)) { try decoder.nextFrame(from: &complete) }
        var partial = ByteBuffer(string: "abc")
        #expect(try decoder.nextFrame(from: &partial) == nil)
        partial.writeString("d")
        #expect(throws: VarlinkFrameTooLargeError(size: 4, limit: 3)) { try decoder.nextFrame(from: &partial) }
    }

    @Test("Calls are read with their flags and parameters")
    func request() {
        let message = #"{"method": "a.b.C", "parameters": {"x": 1}, "more": true, "extra": [null]}"#
        guard case .call(let call) = VarlinkRequest(message: ByteBuffer(string: message)) else {
            Issue.record("expected a call")
            return
        }
        #expect(call == VarlinkCall(method: "a.b.C", parameters: ["x": 1], more: true, oneway: false))
        #expect(call.interfaceName == "a.b")
        #expect(call.methodName == "C")
    }

    @Test(
        "Invalid call fields are InvalidParameter replies, suppressed for oneway calls",
        arguments: [
            (#"{"method": "a.B", "parameters": 1}"#, "parameters", false),
            (#"{"method": "a.B", "parameters": 1, "oneway": true}"#, "parameters", true),
            (#"{"method": "a.B", "more": 1}"#, "more", false),
            (#"{"method": "a.B", "oneway": "no"}"#, "oneway", false),
            (#"{"method": "a.B", "upgrade": true}"#, "upgrade", false),
        ]
    )
    func invalidRequest(message: String, parameter: String, oneway: Bool) {
        guard case .invalid(let method, let isOneway, let error) = VarlinkRequest(message: ByteBuffer(string: message))
        else {
            Issue.record("expected an invalid call")
            return
        }
        #expect(method == "a.B")
        #expect(isOneway == oneway)
        #expect(error == .invalidParameter(parameter))
    }

    @Test(
        "Messages that are no calls are protocol violations",
        arguments: ["", "x", "[]", "{}", #"{"method": null}"#, #"{"method": "a.B", "more": true, "oneway": true}"#]
    )
    func protocolViolation(message: String) {
        guard case .protocolViolation = VarlinkRequest(message: ByteBuffer(string: message)) else {
            Issue.record("expected a protocol violation")
            return
        }
    }

    @Test("Replies carry only parameters, continues and error")
    func replyEncoding() throws {
        let normal = VarlinkReply(parameters: ["a": 1], continues: false).encoded()
        #expect(normal == ByteBuffer(string: #"{"parameters":{"a":1}}"# + "\0"))
        let continuing = VarlinkReply(parameters: [:], continues: true).encoded()
        #expect(continuing == ByteBuffer(string: #"{"continues":true,"parameters":{}}"# + "\0"))
        let error = VarlinkReply(error: .permissionDenied()).encoded()
        #expect(
            error == ByteBuffer(string: #"{"error":"org.varlink.service.PermissionDenied","parameters":{}}"# + "\0")
        )
        let notAnObject = VarlinkReply(error: VarlinkError(name: "a.E", parameters: "text")).encoded()
        #expect(notAnObject == ByteBuffer(string: #"{"error":"a.E","parameters":{}}"# + "\0"))
    }

    @Test("The standard errors have their names and fields")
    func standardErrors() {
        #expect(
            VarlinkError.methodNotFound("a.B")
                == VarlinkError(name: "org.varlink.service.MethodNotFound", parameters: ["method": "a.B"])
        )
        #expect(
            VarlinkError.invalidParameter("x")
                == VarlinkError(name: "org.varlink.service.InvalidParameter", parameters: ["parameter": "x"])
        )
        #expect(
            VarlinkError.interfaceNotFound("a")
                == VarlinkError(name: "org.varlink.service.InterfaceNotFound", parameters: ["interface": "a"])
        )
        #expect(
            VarlinkError.methodNotImplemented("a.B")
                == VarlinkError(name: "org.varlink.service.MethodNotImplemented", parameters: ["method": "a.B"])
        )
        #expect(VarlinkError.expectedMore() == VarlinkError(name: "org.varlink.service.ExpectedMore", parameters: [:]))
        #expect(
            VarlinkError.permissionDenied()
                == VarlinkError(name: "org.varlink.service.PermissionDenied", parameters: [:])
        )
    }
}

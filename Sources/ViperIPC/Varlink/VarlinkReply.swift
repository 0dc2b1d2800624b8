import NIOCore
import SettingsAPI

/// One reply as it goes on the wire: only the members `parameters`, `continues` and `error`.
struct VarlinkReply: Sendable, Hashable {
    /// The reply's parameters; a value that is not an object is sent as an empty object.
    var parameters: JSONValue
    /// Whether more replies to the same call follow; sent only when true.
    var continues: Bool = false
    /// The fully qualified error name for an error reply.
    var error: String?

    /// An error reply.
    init(error: VarlinkError) {
        self.parameters = error.parameters
        self.error = error.name
    }

    /// A normal reply.
    init(parameters: JSONValue, continues: Bool) {
        self.parameters = parameters
        self.continues = continues
    }

    /// The reply as JSON text followed by a NUL byte; members in sorted order (`continues`, `error`,
    /// `parameters`), as every JSON object this server writes, written straight into one buffer.
    func encoded() -> ByteBuffer {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        bytes.append(UInt8(ascii: "{"))
        if self.continues {
            bytes.append(contentsOf: #""continues":true,"#.utf8)
        }
        if let error = self.error {
            bytes.append(contentsOf: #""error":"#.utf8)
            JSONValue.string(error).write(into: &bytes)
            bytes.append(UInt8(ascii: ","))
        }
        bytes.append(contentsOf: #""parameters":"#.utf8)
        if case .object = self.parameters {
            self.parameters.write(into: &bytes)
        } else {
            bytes.append(contentsOf: "{}".utf8)
        }
        bytes.append(UInt8(ascii: "}"))
        bytes.append(0)
        return ByteBuffer(bytes: bytes)
    }

    /// The frame of a last reply whose parameters are already JSON text (an object): `{"parameters":…}` and NUL.
    static func frame(encodedParameters: [UInt8]) -> ByteBuffer {
        var frame = ByteBuffer()
        frame.reserveCapacity(encodedParameters.count + 16)
        frame.writeString(#"{"parameters":"#)
        frame.writeBytes(encodedParameters)
        frame.writeBytes([UInt8(ascii: "}"), 0])
        return frame
    }
}

// Varlink messages as a client sends them: the frame decoder splits the bytes at NULs (in two writes, cut where the
// first byte says), and each frame is classified as a call, an invalid call or a protocol violation. Every JSON
// value the parser accepts must also serialize and parse back to itself.
import FuzzDriver
import Glibc
import NIOCore
import SettingsAPI

@testable import ViperIPC

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVarlinkMessage(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    var decoder = VarlinkFrameDecoder(maximumMessageSize: 4096)
    var buffer = ByteBuffer()
    let cut = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
    for piece in [bytes[..<cut], bytes[cut...]] {
        buffer.writeBytes(piece)
        do {
            while let frame = try decoder.nextFrame(from: &buffer) {
                _ = VarlinkRequest(message: frame)
                let value = frame.withUnsafeReadableBytes { raw in try? JSONValue(parsing: raw) }
                if let value {
                    let text = value.serialized()
                    precondition((try? JSONValue(parsing: text)) == value, "round trip changed \(text)")
                }
            }
        } catch {
            return 0
        }
    }
    return 0
}

runFuzzer(fuzzVarlinkMessage)

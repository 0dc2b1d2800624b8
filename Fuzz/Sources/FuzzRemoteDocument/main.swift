// The HTTP source's document: any bytes either parse into a RemoteSnapshot or fail with a RemoteSyncError.
import Glibc

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRemoteDocument(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    if let snapshot = try? HTTPDocumentParser.parse(bytes, fallbackRevision: "etag") {
        precondition(!snapshot.revision.isEmpty, "a snapshot without a revision")
    }
    return 0
}

// SwiftPM links an executable's `main` to its top-level code, so libFuzzer's own `main` is not used: the top-level
// code hands the command line to libFuzzer's driver instead.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

var fuzzerArgc = CommandLine.argc
var fuzzerArgv = CommandLine.unsafeArgv
exit(runFuzzerDriver(&fuzzerArgc, &fuzzerArgv, fuzzRemoteDocument))

// The HTTP source's document: any bytes either parse into a RemoteSnapshot or fail with a RemoteSyncError.
import FuzzDriver
import Glibc

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRemoteDocument(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    if let snapshot = try? HTTPDocumentParser.parse(bytes, fallbackRevision: "etag") {
        precondition(!snapshot.revision.isEmpty, "a snapshot without a revision")
    }
    return 0
}

runFuzzer(fuzzRemoteDocument)

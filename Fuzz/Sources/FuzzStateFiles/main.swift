// The state files a restart reads: the same bytes as a snapshot (NAME.json), as a journal (NAME.journal: lines
// replayed onto the state in order, up to the first bad one) and as a remote cache (NAME.remote.json).
import FuzzDriver
import Glibc
import ViperSettings

@testable import ViperStorage

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStateFiles(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    _ = try? ModuleSnapshot(decoding: bytes, module: "network")
    _ = try? RemoteLayers(decoding: bytes, module: "network")
    var state = ModuleState()
    for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
        guard let record = try? JournalRecord(decoding: line) else { break }
        state = record.change.applied(to: state)
    }
    return 0
}

runFuzzer(fuzzStateFiles)

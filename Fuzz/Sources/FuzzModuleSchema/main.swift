// Module schemas (NAME.json): any bytes either load as a ModuleSchema or fail with a JSONParseError or SchemaError.
import Glibc
import SettingsAPI
import ViperSettings

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzModuleSchema(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    guard let json = try? JSONValue(parsing: bytes) else { return 0 }
    guard let schema = try? ModuleSchema(json: json) else { return 0 }
    _ = schema.name
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
exit(runFuzzerDriver(&fuzzerArgc, &fuzzerArgv, fuzzModuleSchema))

// Module schemas (NAME.json): any bytes either load as a ModuleSchema or fail with a JSONParseError or SchemaError.
import FuzzDriver
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

runFuzzer(fuzzModuleSchema)

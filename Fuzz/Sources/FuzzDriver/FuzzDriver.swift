import Glibc

// SwiftPM links an executable's `main` to its top-level code, so libFuzzer's own `main` is not used: each target's
// top-level code hands the command line to libFuzzer's driver through ``runFuzzer(_:)``.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// Runs libFuzzer's driver with the process's command line and `callback` as the fuzz target, then exits with the
/// driver's status.
public func runFuzzer(_ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(runFuzzerDriver(&argc, &argv, callback))
}

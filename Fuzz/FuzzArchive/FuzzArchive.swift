import CFuzzerDriver
import FuzzSupport

/// Archives, compressed files, Android bug reports and btsnooz sections (CaptureArchive, with
/// small limits) through the whole pipeline.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzHarness.runArchive(UnsafeRawBufferPointer(start: data, count: count))
    return 0
}

/// SwiftPM links executables with `--defsym main=FuzzArchive_main`; hand control to libFuzzer.
@_cdecl("FuzzArchive_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, count in fuzzOneInput(data, count) }
}

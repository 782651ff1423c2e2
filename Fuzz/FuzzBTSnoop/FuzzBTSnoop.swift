import CFuzzerDriver
import FuzzSupport

/// btsnoop files (datalinks 1001, 1002, 2001) through the whole pipeline.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzHarness.runReader(.btsnoop, UnsafeRawBufferPointer(start: data, count: count))
    return 0
}

/// SwiftPM links executables with `--defsym main=FuzzBTSnoop_main`; hand control to libFuzzer.
@_cdecl("FuzzBTSnoop_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, count in fuzzOneInput(data, count) }
}

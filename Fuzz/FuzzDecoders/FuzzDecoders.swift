import CFuzzerDriver
import FuzzSupport

/// Synthesized HCI command/event/ACL/SCO/ISO records through FrameDecoder, L2CAP reassembly, every describe and the writers.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzHarness.runDecoders(UnsafeRawBufferPointer(start: data, count: count))
    return 0
}

/// SwiftPM links executables with `--defsym main=FuzzDecoders_main`; hand control to libFuzzer.
@_cdecl("FuzzDecoders_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, count in fuzzOneInput(data, count) }
}

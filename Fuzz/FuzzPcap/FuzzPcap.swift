import CFuzzerDriver
import FuzzSupport

/// pcap and pcapng files (libpcap, by path and as a stream) through the whole pipeline.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzHarness.runReader(.pcap, UnsafeRawBufferPointer(start: data, count: count))
    return 0
}

/// SwiftPM links executables with `--defsym main=FuzzPcap_main`; hand control to libFuzzer.
@_cdecl("FuzzPcap_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, count in fuzzOneInput(data, count) }
}

import BLEController
import BLEReplay
import CFuzzerDriver
import Foundation

/// Untrusted host input to the virtual controller (`blecap serve`): the input is what a host
/// writes to the transport, fed in cuts chosen by its first octet, with time passing between
/// them, to a controller serving a Bumble capture. No input may crash, hang or grow memory.
nonisolated(unsafe) let replay: CaptureReplay = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    let path = url.appendingPathComponent("captures/bumble/clean_heart_rate.central.btsnoop").path
    return try! CaptureReplay(path: path)
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: count)
    var config = ControllerConfiguration()
    config.speed = .max
    let controller = VirtualController(replay: replay, configuration: config)
    let cut = max(1, Int(bytes.first ?? 64))
    var i = 0
    while i < bytes.count {
        let n = min(cut, bytes.count - i)
        controller.receive(UnsafeRawBufferPointer(rebasing: bytes[i..<(i + n)]))
        controller.advance(to: controller.now + 20_000)
        i += n
    }
    controller.advance(to: controller.now + 10_000_000)
    _ = controller.report()
    return 0
}

/// SwiftPM links executables with `--defsym main=FuzzServe_main`; hand control to libFuzzer.
@_cdecl("FuzzServe_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, count in fuzzOneInput(data, count) }
}

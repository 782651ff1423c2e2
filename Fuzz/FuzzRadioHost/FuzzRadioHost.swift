import BLEController
import BLEReplay
import CFuzzerDriver
import Foundation

/// Untrusted controller input to blecap as the host of a controller (`blecap replay
/// --controller`, `RadioHost`): the input is the H4 stream a controller writes, handed to the
/// host one packet at a time as its header cuts it (an octet of no known type alone) each
/// time the host reads, on a virtual clock that jumps over every wait once the input is
/// spent. An even-length input then goes silent (the host's bounded waits run out); an odd one
/// closes the transport. The host plays a Bumble central capture's peripheral. No input may
/// crash, hang or grow memory, and every run ends by its limit on the virtual clock.
nonisolated(unsafe) let replay: CaptureReplay = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    let path = url.appendingPathComponent("captures/bumble/hr_short_notification.central.btsnoop").path
    return try! CaptureReplay(path: path)
}()

/// The run's limit on the virtual clock, µs: short, since a silent tail costs a read per 50 ms.
let limit: Int64 = 12_000_000

/// The controller side: the fuzz input, a packet per read.
final class FuzzController: HCITransport {
    let input: UnsafeRawBufferPointer
    var offset = 0
    var time: Int64 = 0
    var reads = 0
    let closesAtEnd: Bool

    init(_ input: UnsafeRawBufferPointer) {
        self.input = input
        closesAtEnd = input.count & 1 == 1
    }

    /// The H4 packet at `i` as its header gives its length (the H4 framer's rule), or 1.
    func packetLength(at i: Int) -> Int {
        func byte(_ k: Int) -> Int { i + k < input.count ? Int(input[i + k]) : 0 }
        switch input[i] {
        case 0x04: return 3 + byte(2)
        case 0x02: return 5 + (byte(3) | byte(4) << 8)
        default: return 1
        }
    }

    func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMicros: Int64) throws(TransportError) -> Int? {
        reads += 1
        guard offset < input.count else {
            if closesAtEnd { return nil }
            time += max(timeoutMicros, 1)
            return 0
        }
        let n = min(buffer.count, packetLength(at: offset), input.count - offset)
        buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: input[offset..<(offset + n)]))
        offset += n
        // A controller's packets take time too: 100 µs each.
        time += 100
        return n
    }

    func send(_ packet: [UInt8]) throws(TransportError) {}
    func close() {}
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let controller = FuzzController(UnsafeRawBufferPointer(start: data, count: count))
    var config = ControllerConfiguration()
    config.aclPackets = 255
    config.speed = count & 2 == 0 ? .realtime : .max
    let virtual = VirtualController(replay: replay, configuration: config)
    var hostConfig = RadioHost.Configuration()
    // Each bounded wait shorter than the run, so that every one of them can run out.
    hostConfig.commandTimeoutMicros = 1_000_000
    hostConfig.acceptTimeoutMicros = 4_000_000
    hostConfig.completedPacketsTimeoutMicros = 2_000_000
    let host = RadioHost(virtual: virtual, transport: controller, configuration: hostConfig, record: true)
    host.clock = { controller.time }
    _ = try? host.run(timeoutMicros: limit)
    _ = virtual.report().json()
    // Every wait is bounded: the run ends by its limit, plus at most one command's wait and
    // the time the input's own packets took (100 µs each, under 1 s for the longest input).
    if controller.time > limit + hostConfig.commandTimeoutMicros + 1_000_000 {
        fatalError("the host waited past its limit: \(controller.time) µs")
    }
    if controller.reads > count + Int(limit + hostConfig.commandTimeoutMicros) {
        fatalError("\(controller.reads) reads for \(count) octets")
    }
    if host.oddities.count > RadioHost.maximumOddities { fatalError("oddities unbounded") }
    return 0
}

/// SwiftPM links executables with `--defsym main=FuzzRadioHost_main`; hand control to libFuzzer.
@_cdecl("FuzzRadioHost_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, count in fuzzOneInput(data, count) }
}

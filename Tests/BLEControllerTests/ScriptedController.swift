import BLEBytes
import BLEController
import BLEPackets
import BLEReplay
import CaptureIO
import TestSupport

/// A controller in the test's hands, for `RadioHost` (blecap hosting a real controller): it
/// answers the host's commands as a well-behaved LE controller does unless `answer` says
/// otherwise, connects a central once advertising is enabled, and plays that central's ATT
/// requests one after another, each once the host has answered the previous, then ends the
/// link. Every packet is real HCI bytes through the host's H4 framer. Time is virtual: a
/// receive with nothing to deliver moves `time` by the whole wait, so the host's bounded waits
/// (command, accept, Number of Completed Packets, the run's limit) pass at once.
final class ScriptedController: HCITransport {
    /// Virtual microseconds; the host's clock (`RadioHost.clock`).
    private(set) var time: Int64 = 0
    /// The live connection's handle.
    var handle: UInt16 = 0x0040
    /// A command's answer instead of the default (H4 packets; empty: no answer), or nil.
    var answer: (_ opcode: UInt16, _ parameters: [UInt8]) -> [[UInt8]]? = { _, _ in nil }
    /// LE Read Buffer Size's return parameters after the status (length u16, count u8).
    var leBuffers: [UInt8] = [251, 0, 4]
    /// Read Buffer Size's after the status (ACL length u16, SCO length u8, ACL count u16, SCO count u16).
    var sharedBuffers: [UInt8] = [27, 0, 0, 4, 0, 0, 0]
    /// The central's ATT requests (and commands), in order.
    var requests: [[UInt8]] = []
    /// Answers ACL data with Number of Completed Packets.
    var completesPackets = true
    /// What happens once the host answered request `n` (0-based): extra packets to send
    /// before the next request, or nil to end the link there instead (Disconnection Complete,
    /// `endReason`).
    var afterAnswer: (_ n: Int) -> [[UInt8]]? = { _ in [] }
    var endReason: UInt8 = HCIError.remoteUserTerminatedConnection
    /// Closes the transport once the host sent this many ACL data packets.
    var closeAfterACL: Int?
    /// After the last request, stays connected and says nothing more.
    var staysConnected = false
    /// Virtual time the central waits before request `n` (after the previous answer).
    var pauseBefore: [Int: Int64] = [:]
    /// When each request went to the host.
    private(set) var requestTimes: [Int64] = []
    /// The central's SMP (L2CAP channel 6): sent once connected, and its answer to each SMP PDU
    /// of the host (SMP PDUs; `deliver` may add HCI events). ATT goes on as scripted meanwhile.
    var smpOnConnect: [[UInt8]] = []
    var smp: (_ pdu: [UInt8]) -> [[UInt8]] = { _ in [] }
    /// The host's SMP PDUs, in order.
    private(set) var smpFromHost: [[UInt8]] = []

    /// The parameters of every command the host sent with `opcode`.
    func parameters(of opcode: UInt16) -> [[UInt8]] {
        fromHost.compactMap { p in
            guard p.count >= 4, p[0] == H4PacketType.command, UInt16(p[1]) | UInt16(p[2]) << 8 == opcode else {
                return nil
            }
            return Array(p.dropFirst(4))
        }
    }
    /// What the host logged in `run`.
    private(set) var hostLog: [String] = []

    /// What the host sent: every H4 packet, the ATT PDUs on the connection, the commands' opcodes.
    private(set) var fromHost: [[UInt8]] = []
    private(set) var att: [(time: Int64, pdu: [UInt8])] = []
    private(set) var commands: [UInt16] = []
    /// Delivered to the host, in order; then what waits for its time.
    private var pending: [UInt8] = []
    private var later: (at: Int64, bytes: [UInt8])?
    private var next = 0
    private var connected = false
    private var reassembly: [UInt8] = []
    private var closed = false

    init(requests: [[UInt8]] = ScriptedController.capturedRequests) { self.requests = requests }

    /// The captured central's ATT PDUs in `hr_short_notification.central.btsnoop` (frames 32…65).
    static let capturedRequests: [[UInt8]] = [
        [0x02, 0xF7, 0x00], [0x06, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28, 0x0D, 0x18],
        [0x06, 0x14, 0x00, 0xFF, 0xFF, 0x00, 0x28, 0x0D, 0x18], [0x08, 0x0E, 0x00, 0x13, 0x00, 0x03, 0x28],
        [0x08, 0x13, 0x00, 0x13, 0x00, 0x03, 0x28], [0x04, 0x11, 0x00, 0x11, 0x00],
        [0x12, 0x11, 0x00, 0x01, 0x00], [0x0A, 0x13, 0x00],
    ]

    /// Puts packets (or raw bytes) on the wire to the host.
    func deliver(_ packets: [[UInt8]]) { for p in packets { pending += p } }

    // MARK: HCITransport

    func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMicros: Int64) throws(TransportError) -> Int? {
        if closed { return nil }
        if pending.isEmpty, let l = later, l.at <= time + timeoutMicros {
            (time, pending, later) = (max(time, l.at), l.bytes, nil)
            requestTimes.append(time)
        }
        guard !pending.isEmpty else {
            time += max(timeoutMicros, 1)
            return 0
        }
        let n = min(buffer.count, pending.count)
        buffer.copyBytes(from: pending[0..<n])
        pending.removeFirst(n)
        return n
    }

    func send(_ packet: [UInt8]) throws(TransportError) {
        guard !closed else { throw TransportError("closed", hostClosed: true) }
        fromHost.append(packet)
        if let limit = closeAfterACL, fromHost.count(where: { $0.first == H4PacketType.acl }) >= limit {
            closed = true
        }
        switch packet.first {
        case H4PacketType.command?: command(packet)
        case H4PacketType.acl?: acl(packet)
        default: break
        }
    }

    func close() { closed = true }

    // MARK: behaviour

    private func command(_ p: [UInt8]) {
        guard p.count >= 4 else { return }
        let opcode = UInt16(p[1]) | UInt16(p[2]) << 8
        let parameters = Array(p.dropFirst(4))
        commands.append(opcode)
        if let custom = answer(opcode, parameters) { return deliver(custom) }
        switch opcode {
        case HCIOpcode.readLocalSupportedFeatures:
            // LMP feature bit 38: LE Supported (Controller).
            deliver([HCISynthesis.commandComplete(opcode, [0, 0, 0, 0, 0, 0x60, 0, 0, 0])])
        case HCIOpcode.readLocalSupportedCommands:
            deliver([HCISynthesis.commandComplete(opcode, [0] + [UInt8](repeating: 0xFF, count: 64))])
        case HCIOpcode.readBDADDR:
            deliver([HCISynthesis.commandComplete(opcode, [0, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11])])
        case HCIOpcode.leReadBufferSize:
            deliver([HCISynthesis.commandComplete(opcode, [0] + leBuffers)])
        case HCIOpcode.readBufferSize:
            deliver([HCISynthesis.commandComplete(opcode, [0] + sharedBuffers)])
        case HCIOpcode.disconnect:
            deliver([HCISynthesis.commandStatus(opcode)])
            if parameters.count >= 3 {
                let h = UInt16(parameters[0]) | UInt16(parameters[1]) << 8
                connected = false
                deliver([
                    HCISynthesis.disconnectionComplete(handle: h, reason: HCIError.connectionTerminatedByLocalHost)
                ])
            }
        case HCIOpcode.leSetAdvertisingEnable, HCIOpcode.leSetExtendedAdvertisingEnable:
            deliver([HCISynthesis.commandComplete(opcode)])
            if parameters.first == 1, !connected, next == 0 {
                connected = true
                deliver([
                    HCISynthesis.leConnectionComplete(
                        status: HCIError.success, handle: handle, role: HCIRole.peripheral, peerType: 1,
                        peer: Self.centralAddress, interval: 24, latency: 0, timeout: 72)
                ])
                for pdu in smpOnConnect { deliver(smpToHost(pdu)) }
                request()
            }
        default:
            deliver([HCISynthesis.commandComplete(opcode)])
        }
    }

    private func acl(_ p: [UInt8]) {
        guard p.count >= 5 else { return }
        let h = (UInt16(p[1]) | UInt16(p[2]) << 8) & 0x0FFF
        if completesPackets { deliver([HCISynthesis.completedPackets(handle: h)]) }
        let continuing = p[2] >> 4 & 0x3 == 0x1
        reassembly = continuing ? reassembly + p.dropFirst(5) : Array(p.dropFirst(5))
        guard reassembly.count >= 4 else { return }
        let length = Int(reassembly[0]) | Int(reassembly[1]) << 8
        guard reassembly.count >= 4 + length else { return }
        let pdu = Array(reassembly[4..<(4 + length)])
        let channel = UInt16(reassembly[2]) | UInt16(reassembly[3]) << 8
        reassembly = []
        if channel == L2CAPChannel.smp {
            smpFromHost.append(pdu)
            for answer in smp(pdu) { deliver(smpToHost(answer)) }
            return
        }
        att.append((time, pdu))
        guard connected, let op = pdu.first else { return }
        switch op {
        case 0x1B, 0x23: return  // notifications
        case 0x1D: return deliver(aclToHost([0x1E]))  // an indication: confirmed
        default: break
        }
        guard let more = afterAnswer(next - 1) else { return end() }
        deliver(more)
        request()
    }

    /// The next request, or the end of the link when there is none.
    private func request() {
        guard next < requests.count else { return staysConnected ? () : end() }
        let bytes = aclToHost(requests[next]).flatMap { $0 }
        if let pause = pauseBefore[next] {
            later = (time + pause, bytes)
        } else {
            pending += bytes
            requestTimes.append(time)
        }
        next += 1
    }

    /// The central's random static address (LE Connection Complete's Peer_Address, type 1).
    static let centralAddress = BDAddr(rawValue: 0xC0D8_0D18_0001)

    /// An SMP PDU from the central, on L2CAP channel 6.
    func smpToHost(_ pdu: [UInt8]) -> [[UInt8]] {
        HCISynthesis.acl(handle: handle, cid: L2CAPChannel.smp, payload: pdu, received: true, fragment: 27)
    }

    /// The central ends the link now (Disconnection Complete, `endReason`).
    func endLink() { end() }

    private func end() {
        guard connected else { return }
        connected = false
        deliver([HCISynthesis.disconnectionComplete(handle: handle, reason: endReason)])
    }

    func aclToHost(_ pdu: [UInt8], handle: UInt16? = nil) -> [[UInt8]] {
        HCISynthesis.acl(handle: handle ?? self.handle, payload: pdu, received: true, fragment: 27)
    }

    // MARK: running a host against it

    /// The central capture's peripheral, played by `RadioHost` through this controller.
    func run(
        capture: String = RadioHostTests.central, speed: ReplaySpeed = .realtime, faults: ReplayFaults = .none,
        configure: (inout RadioHost.Configuration) -> Void = { _ in },
        choose: (VirtualController) -> Void = { _ in },
        timeoutMicros: Int64 = 120_000_000
    ) throws -> (end: Result<RadioHost.End, RadioHostError>, host: RadioHost, report: ServeReport) {
        var config = ControllerConfiguration()
        config.speed = speed
        config.faults = faults
        config.aclPackets = 255
        let virtual = VirtualController(replay: try CaptureReplay(path: capture), configuration: config)
        choose(virtual)
        var hostConfig = RadioHost.Configuration()
        configure(&hostConfig)
        let host = RadioHost(virtual: virtual, transport: self, configuration: hostConfig, record: true)
        host.clock = { [unowned self] in time }
        host.log = { [unowned self] in hostLog.append($0) }
        let end: Result<RadioHost.End, RadioHostError>
        do { end = .success(try host.run(timeoutMicros: timeoutMicros)) } catch { end = .failure(error) }
        return (end, host, virtual.report())
    }

    /// The ATT PDUs the host sent, without the notifications.
    var answers: [[UInt8]] { att.map(\.pdu).filter { $0.first != 0x1B } }
}

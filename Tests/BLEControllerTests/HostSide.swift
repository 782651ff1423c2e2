import BLEBytes
import BLEController
import BLEPackets
import BLEReplay
import CaptureIO
import TestSupport

/// The host side of a capture: every packet its host sent (commands, ACL), H4 type first,
/// with its time in µs after the capture's first frame. Fed to the virtual controller at those
/// times, it is the captured host meeting the captured peripheral again.
struct HostSide {
    var packets: [(time: Int64, bytes: [UInt8])] = []
    /// What the captured controller answered, in order (events and ACL), for comparison.
    var controllerPackets: [(time: Int64, bytes: [UInt8])] = []

    /// Total Num LE ACL Data Packets of the captured controller's LE Read Buffer Size [v1]/[v2].
    var leACLPackets: Int? {
        for p in controllerPackets {
            guard let cc = Event(p.bytes)?.commandComplete, cc.returned.count >= 4,
                cc.opcode == HCIOpcode.leReadBufferSize || cc.opcode == HCIOpcode.leReadBufferSizeV2
            else { continue }
            return Int(cc.returned[3])
        }
        return nil
    }

    init(_ path: String) throws {
        let reader = try CaptureFile.open(path: path)
        var first: Int64?
        while let r = reader.next() {
            let t0 = first ?? r.timestamp
            first = t0
            let type: UInt8
            switch r.kind {
            case .hciCommand: type = H4PacketType.command
            case .aclData: type = H4PacketType.acl
            case .hciEvent: type = H4PacketType.event
            default: continue
            }
            let bytes = [type] + r.payload.toArray()
            if r.direction == .sent {
                packets.append((r.timestamp - t0, bytes))
            } else {
                controllerPackets.append((r.timestamp - t0, bytes))
            }
        }
    }
}

/// A controller on a capture with everything it says collected.
final class Bench {
    let controller: VirtualController
    var out: [[UInt8]] = []
    var logs: [String] = []

    init(_ path: String, configure: (inout ControllerConfiguration) -> Void = { _ in }) throws {
        var config = ControllerConfiguration()
        configure(&config)
        controller = VirtualController(replay: try CaptureReplay(path: path), configuration: config)
        controller.output = { [unowned self] in out.append($0) }
        controller.log = { [unowned self] in logs.append($0) }
    }

    /// Sends `packet` and returns what came back at once.
    @discardableResult
    func send(_ packet: [UInt8]) -> [[UInt8]] {
        let before = out.count
        controller.receive(packet)
        return Array(out[before...])
    }

    func command(_ opcode: UInt16, _ parameters: [UInt8] = []) -> [[UInt8]] {
        send(HCISynthesis.command(opcode, parameters))
    }

    /// Advances the clock by `micros`, returning what came out.
    @discardableResult
    func wait(_ micros: Int64) -> [[UInt8]] {
        let before = out.count
        controller.advance(to: controller.now + micros)
        return Array(out[before...])
    }
}

/// A decoded controller-to-host event.
struct Event {
    let code: UInt8
    let parameters: [UInt8]

    init?(_ h4: [UInt8]) {
        guard h4.first == H4PacketType.event, h4.count >= 3, h4.count == 3 + Int(h4[2]) else { return nil }
        code = h4[1]
        parameters = Array(h4[3...])
    }

    /// Command Complete: (opcode, return parameters).
    var commandComplete: (opcode: UInt16, returned: [UInt8])? {
        guard code == HCIEventCode.commandComplete, parameters.count >= 3 else { return nil }
        return (UInt16(parameters[1]) | UInt16(parameters[2]) << 8, Array(parameters[3...]))
    }

    /// Command Status: (status, opcode).
    var commandStatus: (status: UInt8, opcode: UInt16)? {
        guard code == HCIEventCode.commandStatus, parameters.count == 4 else { return nil }
        return (parameters[0], UInt16(parameters[2]) | UInt16(parameters[3]) << 8)
    }

    var subevent: UInt8? { code == HCIEventCode.leMeta ? parameters.first : nil }
}

extension Array where Element == UInt8 {
    var hex: String { Hex.string(self) }
}

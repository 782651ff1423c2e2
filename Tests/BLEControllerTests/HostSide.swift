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

    /// Times of the captured controller's connection complete events (LE, Enhanced [v1]/[v2]).
    var connectionCompletes: [Int64] {
        controllerPackets.filter { Event($0.bytes).map(isConnectionComplete) ?? false }.map(\.time)
    }

    init(_ path: String) throws {
        let reader = try CaptureFile.open(path: path)
        var first: Int64?
        while let r = reader.next() {
            let t0 = first ?? r.timestamp
            first = t0
            guard let type = HCIPacketKinds.h4Type(of: r.kind) else { continue }
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
    /// When each of `out` went out (controller clock, µs).
    var outTimes: [Int64] = []
    var logs: [String] = []

    init(_ path: String, configure: (inout ControllerConfiguration) -> Void = { _ in }) throws {
        var config = ControllerConfiguration()
        configure(&config)
        controller = VirtualController(replay: try CaptureReplay(path: path), configuration: config)
        controller.output = { [unowned self] in
            out.append($0)
            outTimes.append(controller.now)
        }
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

func isConnectionComplete(_ e: Event) -> Bool {
    guard let sub = e.subevent, e.parameters.count > 1, e.parameters[1] == HCIError.success else { return false }
    return sub == HCILESubeventCode.connectionComplete || sub == HCILESubeventCode.enhancedConnectionComplete
        || sub == HCILESubeventCode.enhancedConnectionCompleteV2
}

extension Bench {
    /// Plays a capture's host against the controller as a real host would: each packet at its
    /// captured time relative to the last connection's start (the captured connection complete
    /// and the controller's line up, so the host's pace within a connection is the captured
    /// one); ACL data waits for its connection and for a free LE ACL buffer.
    func play(_ host: HostSide) {
        let captured = host.connectionCompletes
        var shift: Int64 = 0
        var seen = 0
        var scanned = 0
        // Per connection handle (concurrent connections each keep their own pace).
        var shifts: [UInt16: Int64] = [:]
        func align() {
            while scanned < out.count {
                if seen < captured.count, let e = Event(out[scanned]), isConnectionComplete(e) {
                    shift = outTimes[scanned] - captured[seen]
                    shifts[(UInt16(e.parameters[2]) | UInt16(e.parameters[3]) << 8) & HCIConnectionHandle.mask] = shift
                    seen += 1
                }
                scanned += 1
            }
        }
        /// Runs the controller up to the captured time `t` on the host's clock, timer by timer,
        /// so that a connection coming up on the way re-aligns the clock at once.
        func run(until t: Int64) {
            while controller.now < t + shift {
                let next = min(t + shift, controller.nextDeadline ?? .max)
                controller.advance(to: max(controller.now, next))
                align()
                if next >= t + shift { break }
            }
        }
        for p in host.packets {
            run(until: p.time)
            if p.bytes.first == H4PacketType.acl, p.bytes.count >= 3 {
                let handle = (UInt16(p.bytes[1]) | UInt16(p.bytes[2]) << 8) & HCIConnectionHandle.mask
                if let own = shifts[handle] { shift = own }
                var waited = 0
                while !controller.connectedHandles.contains(handle) || controller.freeACLBuffers == 0, waited < 10_000 {
                    controller.advance(to: controller.nextDeadline ?? controller.now + 1_000)
                    align()
                    waited += 1
                }
                if let own = shifts[handle] { shift = own }
                run(until: p.time)
            }
            controller.receive(p.bytes)
        }
        controller.advance(to: controller.now + 5_000_000)
    }
}

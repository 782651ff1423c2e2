import BLEBytes
import BLEPackets
import CaptureIO
import TestSupport
import Testing

/// Per-frame HCI facts of a capture as blecap's own decoder (`FrameDecoder`) reports them:
/// what the README states at the HCI level (opcodes, PB flags, fragment sizes, Number Of
/// Completed Packets) is asserted from this, everything above HCI from the timeline.
struct FrameWalk {
    struct ACL {
        var sent: Bool
        var boundary: HCIACLPacket.BoundaryFlag
        var length: Int
        var handle: UInt16
    }

    var count = 0
    /// Seconds since the first frame, per frame (index 0 unused).
    var seconds: [Double] = [0]
    var commands: [Int: (opcode: UInt16, parameters: [UInt8])] = [:]
    /// Event code, LE subevent (nil for other events), parameters (after the subevent code).
    var events: [Int: (code: UInt8, subevent: UInt8?, parameters: [UInt8])] = [:]
    var acl: [Int: ACL] = [:]
    /// Number Of Completed Packets events: frame → total count.
    var completedPackets: [Int: Int] = [:]

    init(_ path: String) throws {
        let reader = try CaptureFile.open(path: path)
        let decoder = FrameDecoder()
        var first: Int64?
        while let r = reader.next() {
            let f = decoder.decode(r)
            count += 1
            if first == nil { first = r.timestamp }
            seconds.append(Double(r.timestamp - first!) / 1e6)
            switch f.layer {
            case .command(let c): commands[r.frame] = (c.opcode, c.parameters.toArray())
            case .event(let e):
                events[r.frame] = (
                    e.code, e.subeventCode, (e.subeventCode != nil ? e.subeventParameters : e.parameters).toArray()
                )
                if e.code == HCINumberOfCompletedPackets.code,
                    let n = HCINumberOfCompletedPackets(parameters: e.parameters)
                {
                    completedPackets[r.frame] = n.entries.reduce(0) { $0 + Int($1.count) }
                }
            case .acl(let a):
                acl[r.frame] = ACL(
                    sent: r.direction == .sent, boundary: a.boundary, length: a.data.count, handle: a.handle)
            default: break
            }
        }
        #expect(reader.damage == nil)
    }

    static func bumble(_ name: String) throws -> FrameWalk {
        try FrameWalk(Fixtures.capture("bumble/\(name).btsnoop"))
    }

    func opcode(_ frame: Int) -> UInt16? { commands[frame]?.opcode }
    func subevent(_ frame: Int) -> UInt8? { events[frame]?.subevent }
    func eventCode(_ frame: Int) -> UInt8? { events[frame]?.code }
    /// Frames of commands with `opcode`, in order.
    func frames(ofCommand opcode: UInt16) -> [Int] { commands.filter { $0.value.opcode == opcode }.keys.sorted() }
    /// Frames of LE Meta events with `subevent`, in order.
    func frames(ofSubevent s: UInt8) -> [Int] { events.filter { $0.value.subevent == s }.keys.sorted() }
    func frames(ofEvent code: UInt8) -> [Int] { events.filter { $0.value.code == code }.keys.sorted() }
    /// The Disconnection Complete reason of `frame`.
    func disconnectReason(_ frame: Int) -> UInt8? {
        guard let e = events[frame], e.code == 0x05, e.parameters.count >= 4 else { return nil }
        return e.parameters[3]
    }
}

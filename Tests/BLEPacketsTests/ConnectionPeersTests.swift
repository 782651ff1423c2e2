import BLEBytes
import BLEPackets
import CaptureIO
import Testing

/// The handle→peer table of `blecap packets`: filled by Connection Complete, emptied by
/// Disconnection Complete, replaced when a handle is reused, unknown before.
@Suite struct ConnectionPeersTests {
    /// HCI_LE_Connection_Complete, status 0, handle 0x0040, peer `address` (type `type`).
    static func connectionComplete(_ address: [UInt8], type: UInt8) -> [UInt8] {
        [0x3E, 0x13, 0x01, 0x00, 0x40, 0x00, 0x01, type] + address + [0x18, 0x00, 0x00, 0x00, 0x48, 0x00, 0x01]
    }
    static let disconnection: [UInt8] = [0x05, 0x04, 0x00, 0x40, 0x00, 0x13]
    /// ATT Read Request for 0x0011 on handle 0x0040.
    static let read: [UInt8] = [0x40, 0x00, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x0A, 0x11, 0x00]

    @Test func peerLivesFromConnectionCompleteToDisconnection() {
        let d = FrameDecoder()
        let peers = ConnectionPeers()
        func step(_ kind: RecordKind, _ bytes: [UInt8], _ n: Int) -> ConnectionPeers.Peer? {
            bytes.withByteView { v in
                let f = d.decode(
                    CaptureRecord(
                        frame: n, timestamp: 0, direction: .received, kind: kind,
                        rawType: kind == .hciEvent ? 4 : 2, payload: v, originalLength: bytes.count, fileOffset: 0,
                        recordLength: bytes.count))
                peers.observe(f)
                return peers.peer(of: f)
            }
        }
        // Mid-connection: never guessed.
        #expect(step(.aclData, Self.read, 1) == nil)
        _ = step(.hciEvent, Self.connectionComplete([0x06, 0x05, 0x04, 0x03, 0x02, 0xC1], type: 1), 2)
        #expect(step(.aclData, Self.read, 3) == .init(address: BDAddr("C1:02:03:04:05:06")!, isRandom: true))
        _ = step(.hciEvent, Self.disconnection, 4)
        #expect(peers.count == 0)
        #expect(step(.aclData, Self.read, 5) == nil)
        // The handle reused for another peer (public address): the new one, no leftover.
        _ = step(.hciEvent, Self.connectionComplete([0x01, 0x00, 0x00, 0x00, 0x0D, 0xD8], type: 1), 6)
        _ = step(.hciEvent, Self.connectionComplete([0x11, 0x22, 0x33, 0x44, 0x55, 0x66], type: 0), 7)
        #expect(step(.aclData, Self.read, 8) == .init(address: BDAddr("66:55:44:33:22:11")!, isRandom: false))
        #expect(peers.count == 1)
    }

    /// A lookup is remembered for the next frame of the same handle; a disconnection of that
    /// handle, while another stays open, must not leave the remembered peer behind.
    @Test func aRememberedLookupEndsWithItsConnection() {
        let d = FrameDecoder()
        let peers = ConnectionPeers()
        func frame(_ kind: RecordKind, _ bytes: [UInt8]) -> ConnectionPeers.Peer? {
            bytes.withByteView { v in
                let f = d.decode(
                    CaptureRecord(
                        frame: 1, timestamp: 0, direction: .received, kind: kind,
                        rawType: kind == .hciEvent ? 4 : 2, payload: v, originalLength: bytes.count, fileOffset: 0,
                        recordLength: bytes.count))
                peers.observe(f)
                return peers.peer(of: f)
            }
        }
        var second = Self.connectionComplete([0x11, 0x22, 0x33, 0x44, 0x55, 0x66], type: 0)
        second[4] = 0x41
        var readOnSecond = Self.read
        readOnSecond[0] = 0x41
        _ = frame(.hciEvent, Self.connectionComplete([0x06, 0x05, 0x04, 0x03, 0x02, 0xC1], type: 1))
        _ = frame(.hciEvent, second)
        let first = ConnectionPeers.Peer(address: BDAddr("C1:02:03:04:05:06")!, isRandom: true)
        #expect(frame(.aclData, Self.read) == first)
        #expect(frame(.aclData, Self.read) == first)
        _ = frame(.hciEvent, Self.disconnection)
        #expect(peers.count == 1)
        #expect(frame(.aclData, Self.read) == nil)
        #expect(frame(.aclData, readOnSecond) == .init(address: BDAddr("66:55:44:33:22:11")!, isRandom: false))
    }
}

import BLEBytes
import CaptureIO

/// The peer of each open connection handle, as the frame that opened it named it: an LE
/// (Enhanced) Connection Complete over HCI (Core 5.4 Vol 4 Part E 7.7.65.1, 7.7.65.10) or,
/// over the air, the AdvA of the CONNECT_IND (Vol 6 Part B 2.3.3.1). For a frame-by-frame
/// pass that runs no timeline (`blecap packets`).
///
/// Bounded: at most `capacity` handles; a full table starts again empty (its handles then
/// read as unknown, never as a wrong peer). A handle's entry is replaced when a connection
/// reuses it and removed at its Disconnection Complete (7.7.5). A handle the capture never
/// saw open (it starts mid-connection) has no peer.
public final class ConnectionPeers {
    public struct Peer: Sendable, Equatable {
        public let address: BDAddr
        public let isRandom: Bool
        public init(address: BDAddr, isRandom: Bool) {
            self.address = address
            self.isRandom = isRandom
        }
    }

    public static let capacity = 4096
    @exclusivity(unchecked) private var peers: [UInt32: Peer] = [:]
    /// The last lookup and its answer: the frames of a transfer ask for one handle after another
    /// of the same key, and each dictionary lookup hashes it. Forgotten whenever the table
    /// changes. Unchecked, as the table: a table is used from one thread (docs/performance.md).
    @exclusivity(unchecked) private var lastKey = UInt32.max
    @exclusivity(unchecked) private var lastPeer: Peer?

    public init() {}

    public var count: Int { peers.count }

    @inline(__always) static func key(_ controller: UInt16, _ handle: UInt16) -> UInt32 {
        UInt32(controller) << 16 | UInt32(handle & 0x0FFF)
    }

    /// The peer of `handle` on `controller`, if the capture showed its connection open.
    public func peer(controller: UInt16, handle: UInt16) -> Peer? {
        if peers.isEmpty { return nil }
        let k = Self.key(controller, handle)
        if k == lastKey { return lastPeer }
        let p = peers[k]
        (lastKey, lastPeer) = (k, p)
        return p
    }

    /// The peer of the connection a frame belongs to (ACL, Link Layer data).
    public func peer(of frame: DecodedFrame) -> Peer? {
        guard let h = frame.connectionHandle else { return nil }
        return peer(controller: frame.record.controllerIndex, handle: h)
    }

    /// Takes in what `frame` says about connections opening and closing.
    public func observe(_ frame: DecodedFrame) {
        switch frame.layer {
        case .event(let e):
            let c = frame.record.controllerIndex
            if let sub = e.subeventCode {
                let p = e.subeventParameters
                switch sub {
                case HCILEConnectionComplete.subevent:
                    if let cc = HCILEConnectionComplete(parameters: p), cc.status == 0 {
                        set(c, cc.handle, Peer(address: cc.peerAddress, isRandom: cc.peerAddressType & 1 != 0))
                    }
                case HCILEEnhancedConnectionComplete.subeventV1, HCILEEnhancedConnectionComplete.subeventV2:
                    if let cc = HCILEEnhancedConnectionComplete(
                        parameters: p, version: sub == HCILEEnhancedConnectionComplete.subeventV2 ? 2 : 1),
                        cc.status == 0
                    {
                        set(c, cc.handle, Peer(address: cc.peerAddress, isRandom: cc.peerAddressType & 1 != 0))
                    }
                default: break
                }
            } else if e.code == HCIDisconnectionComplete.code, !peers.isEmpty,
                let d = HCIDisconnectionComplete(parameters: e.parameters), d.status == 0
            {
                peers[Self.key(c, d.handle)] = nil
                lastKey = .max
            }
        case .linkLayer(let ll):
            guard ll.connection != 0, ll.crc != .invalid, case .advertising(let a) = ll.pdu,
                a.pduType == LLAdvertisingPDUType.connectInd, let adv = a.advA
            else { return }
            set(frame.record.controllerIndex, ll.connection, Peer(address: adv, isRandom: a.advARandom))
        default: break
        }
    }

    private func set(_ controller: UInt16, _ handle: UInt16, _ peer: Peer) {
        let k = Self.key(controller, handle)
        if peers.count >= Self.capacity, peers[k] == nil { peers.removeAll(keepingCapacity: true) }
        peers[k] = peer
        lastKey = .max
    }
}

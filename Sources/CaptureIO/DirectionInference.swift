import BLEBytes
import BLECodes

/// Infers which way an HCI packet went when the container does not say (pcap link type 187,
/// BLUETOOTH_HCI_H4, has no direction pseudo-header).
///
/// Feed it every packet in file order. Commands are always host → controller and events
/// controller → host (Core 5.4 Vol 4 Part E 5.4.1, 5.4.4). ACL data carries no direction; the
/// evidence for a start fragment is, strongest first:
///
/// 1. Packet_Boundary_Flag 0b00 ("first non-automatically-flushable packet") is only ever
///    sent host → controller (Vol 4 Part E 5.4.2).
/// 2. L2CAP content that depends only on the *link* role, given the local controller's role
///    on the connection (from LE Connection Complete / LE Enhanced Connection Complete, role
///    0x00 central, 0x01 peripheral): an SMP Pairing Request comes from the central, a Pairing
///    Response or a Security Request from the peripheral (Vol 3 Part H 3.5.1, 3.5.2, 3.6.7); an
///    L2CAP Connection Parameter Update Request from the peripheral, its Response from the
///    central (Vol 3 Part A 4.20, 4.21).
/// 3. On LE-U the host starts PDUs with 0b00 and the controller with 0b10 (Vol 4 Part E 5.4.2),
///    so a 0b10 start on an LE connection, or on any connection where the host was seen using
///    0b00, is received. Every Android, Linux (btmon) and iOS capture in the project's corpus
///    follows this; BTstack does not (it sends 0b10 on LE). A host is therefore assumed
///    conforming until rule 2 catches it sending a 0b10 start on LE; from then on rule 3 only
///    uses per-connection evidence.
/// 4. ATT content, for what rules 1–3 leave (non-conforming hosts, 0b11 starts): requests,
///    commands, signed writes and confirmations go client → server; responses, error
///    responses, notifications and indications server → client (Vol 3 Part F 3.3, 3.4.8).
///
///    **Assumption:** the local *central* is the GATT client and the local *peripheral* the
///    GATT server. That is the usual arrangement (phone ↔ sensor) but not a rule: GATT roles are
///    independent of link roles, and a watch discovering the phone's own GATT server (seen in a
///    real capture in the corpus) reverses it. That is why rule 3 outranks this one.
///
/// A continuation fragment (0b01) goes the way the last start fragment on its handle went.
/// When nothing tells, the direction is `.unknown`. Per-connection state lives in one fixed
/// table indexed by the 12-bit handle, allocated once: classifying a packet allocates nothing.
public struct H4DirectionInference {
    /// Per-handle state bits.
    private static let known: UInt8 = 0x01  // an LE connection complete was seen
    private static let peripheral: UInt8 = 0x02  // local role: peripheral (else central)
    private static let bredr: UInt8 = 0x04  // a BR/EDR connection complete was seen
    private static let hostUsesNonFlushable: UInt8 = 0x08  // host sent a 0b00 start here
    private static let lastSent: UInt8 = 0x10  // last start fragment was sent
    private static let lastReceived: UInt8 = 0x20  // last start fragment was received

    private var handles: [UInt8]
    /// Rule 2 caught the host starting an LE PDU with 0b10 (it ignores the LE-U rule).
    public private(set) var hostSendsFlushableOnLE = false

    public init() {
        handles = [UInt8](repeating: 0, count: 0x1000)
    }

    /// The direction of one H4 packet. `payload` is the packet without its H4 type byte.
    public mutating func direction(kind: RecordKind, payload: ByteView) -> Direction {
        switch kind {
        case .hciCommand:
            return .sent
        case .hciEvent:
            observeEvent(payload)
            return .received
        case .aclData:
            return aclDirection(payload)
        default:
            return .unknown
        }
    }

    /// The local role on `handle` as learned from connection events: 0 central, 1 peripheral,
    /// nil if no LE connection complete was seen for it.
    public func localRole(handle: UInt16) -> UInt8? {
        let s = handles[Int(handle & 0x0FFF)]
        guard s & Self.known != 0 else { return nil }
        return s & Self.peripheral != 0 ? 1 : 0
    }

    // MARK: Events

    private mutating func observeEvent(_ p: ByteView) {
        guard let code = p.u8(0) else { return }
        switch code {
        case HCIEventCode.leMeta:  // Vol 4 Part E 7.7.65
            guard let sub = p.u8(2) else { return }
            // LE Connection Complete, LE Enhanced Connection Complete v1 and v2 share the
            // prefix Status, Connection_Handle, Role.
            guard
                sub == HCILESubeventCode.connectionComplete || sub == HCILESubeventCode.enhancedConnectionComplete
                    || sub == HCILESubeventCode.enhancedConnectionCompleteV2,
                let status = p.u8(3), status == 0,
                let handle = p.u16le(4), let role = p.u8(6)
            else { return }
            var s = Self.known
            if role == 0x01 { s |= Self.peripheral }
            handles[Int(handle & 0x0FFF)] = s
        case HCIEventCode.connectionComplete:  // BR/EDR (7.7.3): Status, Connection_Handle, …
            guard let status = p.u8(2), status == 0, let handle = p.u16le(3) else { return }
            handles[Int(handle & 0x0FFF)] = Self.bredr
        case HCIEventCode.disconnectionComplete:  // 7.7.5: Status, Connection_Handle, Reason
            guard let status = p.u8(2), status == 0, let handle = p.u16le(3) else { return }
            handles[Int(handle & 0x0FFF)] = 0
        default:
            return
        }
    }

    // MARK: ACL

    private mutating func aclDirection(_ p: ByteView) -> Direction {
        guard let hf = p.u16le(0) else { return .unknown }
        let slot = Int(hf & 0x0FFF)
        let pb = (hf >> 12) & 0x3
        var s = handles[slot]

        if pb == 0b01 {  // continuation: follows its start fragment
            if s & Self.lastSent != 0 { return .sent }
            if s & Self.lastReceived != 0 { return .received }
            return .unknown
        }

        let d: Direction
        if pb == 0b00 {
            s |= Self.hostUsesNonFlushable
            d = .sent
        } else if let fromLinkRole = linkRoleDirection(p, state: s) {
            d = fromLinkRole
            if d == .sent, pb == 0b10 { hostSendsFlushableOnLE = true }
        } else if pb == 0b10, s & Self.bredr == 0,
            s & Self.hostUsesNonFlushable != 0 || (s & Self.known != 0 && !hostSendsFlushableOnLE)
        {
            d = .received
        } else if let fromATT = attDirection(p, state: s) {
            d = fromATT
        } else {
            d = .unknown
        }
        s &= ~(Self.lastSent | Self.lastReceived)
        if d == .sent { s |= Self.lastSent } else if d == .received { s |= Self.lastReceived }
        handles[slot] = s
        return d
    }

    /// Rule 2: SMP and LE signalling PDUs whose sender follows from the link role.
    private func linkRoleDirection(_ p: ByteView, state s: UInt8) -> Direction? {
        guard s & Self.known != 0 else { return nil }
        // ACL header (4) then the L2CAP basic header: Length (2), Channel ID (2).
        guard let cid = p.u16le(6), let code = p.u8(8) else { return nil }
        let fromCentral: Bool
        switch (cid, code) {
        // The LE initiator (the central) sends the Pairing Request.
        case (L2CAPChannel.smp, SMPCode.pairingRequest): fromCentral = true
        case (L2CAPChannel.smp, SMPCode.pairingResponse), (L2CAPChannel.smp, SMPCode.securityRequest):
            fromCentral = false
        case (L2CAPChannel.leSignaling, L2CAPSignalingCode.connectionParameterUpdateRequest): fromCentral = false
        case (L2CAPChannel.leSignaling, L2CAPSignalingCode.connectionParameterUpdateResponse): fromCentral = true
        default: return nil
        }
        return fromCentral == (s & Self.peripheral == 0) ? .sent : .received
    }

    /// Rule 4: ATT by opcode, assuming central = GATT client (see the type's doc).
    private func attDirection(_ p: ByteView, state s: UInt8) -> Direction? {
        guard s & Self.known != 0, p.u16le(6) == L2CAPChannel.att, let code = p.u8(8),
            let clientToServer = ATTOpcode(code).isClientToServer
        else { return nil }
        return clientToServer == (s & Self.peripheral == 0) ? .sent : .received
    }
}

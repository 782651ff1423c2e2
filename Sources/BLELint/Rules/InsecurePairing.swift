import BLEBytes
import BLEPackets
import BLETimeline

/// BLE010: a bond made with a weak association model.
///
/// The association model follows from the two Pairing Request/Response feature sets (Core 5.4
/// Vol 3 Part H 2.3.5.1). Just Works gives no protection against a man in the middle and the
/// key it produces is "unauthenticated"; LE legacy pairing with Just Works or Passkey Entry
/// derives the key from a TK an eavesdropper can brute-force from the recorded exchange
/// (Vol 1 Part A 5.4). Either is a note for a one-off connection, but a bond stores that key
/// and reuses it on every reconnection, so the weakness lasts as long as the bond.
public struct InsecurePairing: LintRule {
    public static let descriptor = RuleDescriptor(
        id: "BLE010", slug: "insecure-pairing", title: "Bond made with Just Works or legacy pairing",
        defaultSeverity: .note,
        summary: """
            Two devices that both asked for bonding (Bonding_Flags in AuthReq) paired with Just Works (no MITM \
            protection: the stored key is unauthenticated) or with LE legacy pairing (a TK that can be \
            brute-forced from a sniffed exchange, unless it came out of band). The finding is at the \
            Pairing Response, where the association model is decided, and names both sides' IO capabilities \
            and AuthReq. Core Bluetooth leaves pairing to the system; the basis is Core Vol 3 Part H 2.3.5.1 and Vol 1 \
            Part A 5.4. A link encrypted with a key from a pairing before the capture is reported as not \
            evaluable for that connection. Over the air, blecap recovers a legacy pairing's TK from the \
            captured exchange as crackle does, decrypts the link and reads the distributed LTK: the finding \
            then says so, with the key and how long recovering it took — evidence, not a possibility.
            """,
        enforces: [
            "Protect a bond against a man in the middle: require encryption for the values that need it, and declare the IO capabilities the device really has so pairing can use Numeric Comparison or Passkey Entry.",
            "Pair with LE Secure Connections rather than LE legacy pairing.",
        ],
        references: [
            .apple("CBMutableCharacteristic.init(type:properties:value:permissions:)"),
            .apple("CBAttributePermissions.readEncryptionRequired"),
            .apple("CBCharacteristicProperties.notifyEncryptionRequired"),
            .android("BluetoothDevice.createBond()"),
            .android("BluetoothGattCharacteristic.PERMISSION_READ_ENCRYPTED_MITM"),
            .android("BluetoothGattCharacteristic.PERMISSION_WRITE_ENCRYPTED_MITM"),
            .spec("Vol 3 Part H 2.3.5.1", "how IO capabilities and AuthReq choose the pairing method"),
            .spec("Vol 3 Part H 3.5.1", "Pairing Request and bonding"),
            .spec("Vol 1 Part A 5.4", "what each pairing method protects against"),
        ],
        evidence: [.hci],
        fix: """
            // Peripheral (CBPeripheralManager): require encryption; iOS then pairs, and with a
            // display it uses Numeric Comparison or Passkey Entry rather than Just Works.
            let characteristic = CBMutableCharacteristic(
                type: characteristicUUID,
                properties: [.read, .notifyEncryptionRequired],
                value: nil,
                permissions: [.readEncryptionRequired])
            // Accessory firmware: set MITM and SC in AuthReq and declare the IO capabilities the
            // device really has (a display: DisplayYesNo), so the central can use Numeric Comparison.
            """,
        party: .peer,
        android: PlatformAdvice(
            """
            On Android the stack, not the app, declares the phone's IO capabilities and asks for MITM \
            protection, so what an app controls is what it requires: `BluetoothDevice.createBond` starts a \
            pairing whose method follows from both sides' declarations, and a GATT server app requires an \
            authenticated key with the `PERMISSION_READ_ENCRYPTED_MITM` / `PERMISSION_WRITE_ENCRYPTED_MITM` \
            permissions of its `BluetoothGattCharacteristic` (Android's `BluetoothDevice` and \
            `BluetoothGattCharacteristic` references). Just Works between a phone and an accessory comes from \
            the accessory's declaration (no display, no keyboard): its firmware is where to fix it.
            """,
            fix: """
                // GATT server app: require an authenticated (MITM) bond for the value.
                val characteristic = BluetoothGattCharacteristic(
                    characteristicUuid,
                    BluetoothGattCharacteristic.PROPERTY_READ or BluetoothGattCharacteristic.PROPERTY_NOTIFY,
                    BluetoothGattCharacteristic.PERMISSION_READ_ENCRYPTED_MITM)
                // Client app: bond explicitly; the accessory's IO capabilities decide the method.
                device.createBond()
                """))

    static let maximumConnections = 256
    static let maximumPeers = 1024

    struct Link {
        var request: (features: SMPPairingFeatures, frame: Int, hostSent: Bool)?
        var paired = false
        /// The bond's finding, held until the capture shows whether its key can be recovered
        /// (over the air: the first encrypted PDU and the key distribution after it).
        var pending: (message: String, event: TimelineEvent, related: [Int], party: Party)?
        /// The legacy pairing's key recovered from the capture (`ll.decryption`).
        var recovered: (source: LinkLayerKeySource, frame: Int)?
        /// The Pairing Response chose Passkey Entry: a TK of 0 is then the passkey 000000.
        var passkeyEntry = false
    }

    var links: [Int: Link] = [:]
    /// Peers that paired in this capture (a later encryption with their key is expected).
    var pairedPeers: Set<BDAddr> = []

    public static let observedEvents: TimelineEventClasses = [.connection, .security]
    public static let observedFacts: HCIFactClasses = []

    public init(settings: RuleSettings) {}

    public static let readsATTOrSMP = true

    public static func notEvaluable(_ f: CaptureFacts) -> String? {
        f.aclPackets == 0 && f.hciEvents == 0
            ? "the input holds no HCI events or ACL data (no SMP, no encryption)" : nil
    }

    static func ioName(_ v: UInt8) -> String {
        switch v {
        case 0: "DisplayOnly"
        case 1: "DisplayYesNo"
        case 2: "KeyboardOnly"
        case 3: "NoInputNoOutput"
        case 4: "KeyboardDisplay"
        default: "reserved 0x" + Describe.hex(v, 2)
        }
    }

    static func methodName(_ m: PairingMethod) -> String {
        switch m {
        case .justWorks: "Just Works"
        case .passkeyEntry: "Passkey Entry"
        case .numericComparison: "Numeric Comparison"
        case .outOfBand: "Out of Band"
        }
    }

    static func features(_ f: SMPPairingFeatures) -> String {
        "\(ioName(f.ioCapability)), AuthReq 0x\(Describe.hex(f.authReq.rawValue, 2))"
    }

    public mutating func observe(_ e: TimelineEvent, _ sink: FindingSink) {
        guard let c = e.connection else { return }
        switch e.kind {
        case .connectionComplete:
            if links.count < Self.maximumConnections { links[c] = Link() }
        case .disconnection:
            flush(c, sink)
            links[c] = nil
        case .pairingRequest(let info, let sent):
            flush(c, sink)
            if links[c] == nil, links.count < Self.maximumConnections { links[c] = Link() }
            links[c]?.request = (info.features, e.frame, sent)
        case .pairingResponse(let info, _):
            links[c]?.paired = true
            if let p = e.peer, pairedPeers.count < Self.maximumPeers { pairedPeers.insert(p) }
            guard let request = links[c]?.request else {
                sink.notEvaluable(
                    "a Pairing Response without its Pairing Request in the capture: the association model is unknown")
                return
            }
            // A bond is made only when both sides ask for one (Vol 3 Part H 3.5.1).
            guard request.features.authReq.bonding, info.features.authReq.bonding,
                let method = info.method, let sc = info.secureConnections
            else { return }
            links[c]?.passkeyEntry = method == .passkeyEntry
            var weaknesses: [String] = []
            if method == .justWorks {
                weaknesses.append("Just Works gives no MITM protection, so the bonded key is unauthenticated")
            }
            if !sc, method != .outOfBand {
                weaknesses.append("LE legacy pairing lets an eavesdropper recover the key from the recorded exchange")
            }
            guard !weaknesses.isEmpty else { return }
            let (initiator, responder) = request.hostSent ? ("this host", "the peer") : ("the peer", "this host")
            let model = sc ? "LE Secure Connections" : "LE legacy pairing"
            // Whose declaration made it weak (the first weakness decides): Just Works comes from
            // a side without IO, else from a side that did not ask for MITM protection; legacy
            // pairing from a side without Secure Connections. This host's side is what its OS
            // stack declared; the peer's is its firmware's.
            let peerFeatures = request.hostSent ? info.features : request.features
            let hostFeatures = request.hostSent ? request.features : info.features
            let noIO: UInt8 = 0x03
            let party: Party
            if method == .justWorks {
                party =
                    hostFeatures.ioCapability == noIO
                    ? .osStack
                    : peerFeatures.ioCapability == noIO ? .peer : !hostFeatures.authReq.mitm ? .osStack : .peer
            } else {
                party = peerFeatures.authReq.secureConnections ? .osStack : .peer
            }
            links[c]?.pending = (
                "bonded using \(Self.methodName(method)) (\(model)): "
                    + weaknesses.joined(separator: "; ")
                    + " (initiator \(initiator): \(Self.features(request.features)); responder \(responder): \(Self.features(info.features)))",
                e, [request.frame], party
            )
        case .linkLayerDecryption(.decrypting(let source)):
            guard case .recoveredFromPairing = source else { return }
            links[c]?.recovered = (source, e.frame)
        case .keyDistribution(.longTermKey, let sent):
            // The LTK read from the decrypted key distribution completes the evidence.
            guard links[c]?.recovered != nil, e.value.count == 16,
                let ltk = e.value.withView({ $0.littleEndianUInt128(at: 0) })
            else { return }
            flush(c, sink, ltk: (ltk, sent, e.frame))
        case .encryptionChange(let status, let enabled):
            guard status == 0, enabled != 0, links[c]?.paired != true else { return }
            if let p = e.peer, pairedPeers.contains(p) { return }
            sink.notEvaluable(
                "a link was encrypted with a key from a pairing before the capture: its association model is unknown")
        default:
            break
        }
    }

    public mutating func finish(at time: Int64, _ sink: FindingSink) {
        for c in links.keys.sorted() { flush(c, sink) }
    }

    /// Reports connection `c`'s held finding, with what the capture proved about its key.
    mutating func flush(_ c: Int, _ sink: FindingSink, ltk: (key: UInt128, sentByHost: Bool, frame: Int)? = nil) {
        guard let pending = links[c]?.pending else { return }
        links[c]?.pending = nil
        var message = pending.message
        var related = pending.related
        if let (source, frame) = links[c]?.recovered,
            case .recoveredFromPairing(_, let stk, let attempts, let method) = source
        {
            message +=
                ". Shown by this capture: blecap recovered the TK (\(Self.tkName(method, passkeyEntry: links[c]?.passkeyEntry == true))) after \(attempts) attempt\(attempts == 1 ? "" : "s") and decrypted the link with the STK \(stk.hexMSBFirst)"
            related.append(frame)
            if let ltk {
                message +=
                    ", reading the LTK \(ltk.sentByHost ? "this host" : "the peer") distributed: \(ltk.key.hexMSBFirst) (frame \(ltk.frame)): every later link encrypted with this bond can be read"
                related.append(ltk.frame)
            }
        }
        sink.report(message, event: pending.event, related: related, party: pending.party)
    }

    /// TK 0 is Just Works' TK, or the passkey 000000 when the pairing chose Passkey Entry.
    static func tkName(_ m: LegacyPairingMethod, passkeyEntry: Bool) -> String {
        switch m {
        case .justWorks: passkeyEntry ? "passkey 000000" : "Just Works, TK 0"
        case .passkeyEntry: "\(m)"
        }
    }
}

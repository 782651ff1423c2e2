import BLEBytes
import BLETimeline

/// BLE012: discovering the whole GATT database to use a few characteristics of it.
///
/// `discoverServices(nil)` makes Core Bluetooth run Discover All Primary Services (Read By
/// Group Type over 0x0001–0xFFFF, Core Vol 3 Part G 4.4.1) and `discoverCharacteristics(nil,
/// for:)` Discover All Characteristics of a Service (Read By Type 0x2803 over the service's
/// range, 4.6.1). Each round trip costs at least one connection interval; an app that then
/// uses two characteristics has spent the radio time (and the peripheral's battery) for
/// nothing. The guidance passes the UUIDs it needs (000_*.txt, "Central Role: Connecting":
/// `discoverServices([heartRateServiceUUID])`).
///
/// What can be told from HCI: Discover Primary Service by UUID uses Find By Type Value, so a
/// Read By Group Type over the whole range is an unfiltered service discovery. Characteristic
/// discovery by UUID and of all characteristics are the same Read By Type on the wire (the
/// client filters), so characteristics count towards "discovered" but do not by themselves
/// start a finding.
///
/// "Few" is a threshold: the finding is made when the session (every connection to the
/// same peer in the capture: Core Bluetooth caches the database across connections) used at
/// most `max_used_fraction` of the characteristics it discovered, and discovered at least
/// `min_characteristics`.
public struct FullDiscovery: LintRule {
    public static let descriptor = RuleDescriptor(
        id: "BLE012", slug: "full-discovery", title: "Whole database discovered, few characteristics used",
        defaultSeverity: .note,
        summary: """
            This host discovered every primary service of the peer (Read By Group Type over \
            0x0001–0xFFFF: discoverServices(nil)) and the characteristics of every service (Read By \
            Type over each whole service), but the session then read, wrote, subscribed to or \
            received notifications from only a few of the characteristics it found (at most \
            max_used_fraction of them, counted over every connection to the same peer in the \
            capture). Discovery by UUID costs fewer round trips and less power on both sides. \
            Android's BluetoothGatt.discoverServices() always discovers everything, so on Android \
            captures this note states the cost, not an app choice.
            """,
        guidance: [
            GuidanceReference(
                GuidanceReference.primary,
                "Central Role: Connecting (discoverServices([heartRateServiceUUID]) in didConnect)"),
            GuidanceReference(GuidanceReference.primary, "Central Role: Scanning (specify the service UUIDs you need)"),
        ],
        evidence: [.hci],
        thresholds: [
            ThresholdSpec(
                "max_used_fraction", 0.5, unit: "",
                "Report when the session used at most this fraction of the characteristics it discovered"),
            ThresholdSpec(
                "min_characteristics", 4, unit: "characteristics",
                "Smaller databases are not worth reporting: discovering them all costs little"),
        ],
        fix: """
            func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
                peripheral.delegate = self
                peripheral.discoverServices([heartRateServiceUUID])  // not nil
            }

            func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
                for service in peripheral.services ?? [] {
                    peripheral.discoverCharacteristics([heartRateMeasurementUUID], for: service)
                }
            }
            """)

    static let maximumPeers = 256
    static let maximumUsed = 512

    /// A characteristic the session used: by UUID where the handle is known to the timeline
    /// (a CCCD counts for its characteristic), else by handle.
    enum Used: Hashable {
        case characteristic(BluetoothUUID)
        case handle(UInt16)
    }

    /// Who the session is with: the peer address, or the connection when it has none.
    enum SessionKey: Hashable {
        case peer(BDAddr)
        case connection(Int)
    }

    struct Session {
        var fullDiscovery: TimelineEvent?
        var services = 0
        var characteristics = 0
        var firstCharacteristicDiscovery: Int?
        var used: Set<Used> = []
        var usedNames: [String] = []
        var usedFrames: [Int] = []
    }

    let maxUsedFraction: Double
    let minCharacteristics: Int
    var sessions: [SessionKey: Session] = [:]
    var order: [SessionKey] = []

    public init(settings: RuleSettings) {
        maxUsedFraction = settings.threshold("max_used_fraction", in: Self.descriptor)
        minCharacteristics = Int(settings.threshold("min_characteristics", in: Self.descriptor))
    }

    public static let readsATTOrSMP = true

    public static func notEvaluable(_ f: CaptureFacts) -> String? {
        f.aclPackets == 0 ? "the input holds no ACL data (no GATT discovery to look at)" : nil
    }

    static func key(_ e: TimelineEvent) -> SessionKey? {
        if let p = e.peer { return .peer(p) }
        return e.connection.map { .connection($0) }
    }

    mutating func update(_ e: TimelineEvent, create: Bool, _ body: (inout Session) -> Void) {
        guard let k = Self.key(e) else { return }
        if sessions[k] == nil {
            guard create, sessions.count < Self.maximumPeers else { return }
            sessions[k] = Session()
            order.append(k)
        }
        body(&sessions[k]!)
    }

    public mutating func observe(_ e: TimelineEvent, _ sink: FindingSink) {
        switch e.kind {
        case .discovery(let d, let sent) where sent:
            switch d.target {
            case .primaryServices where d.filter == nil:
                update(e, create: true) { s in
                    if s.fullDiscovery == nil, d.startHandle == 0x0001, d.endHandle == 0xFFFF { s.fullDiscovery = e }
                    s.services += d.found
                }
            case .characteristics where d.filter == nil:
                update(e, create: true) { s in
                    s.characteristics += d.found
                    if s.firstCharacteristicDiscovery == nil { s.firstCharacteristicDiscovery = e.frame }
                }
            default: break
            }
        case .read(let op, _) where op.sent: use(op, e)
        case .write(let op, _) where op.sent: use(op, e)
        case .subscribe(let op, _) where op.sent: use(op, e)
        case .notification(let op) where !op.sent: use(op, e)
        case .indication(let op) where !op.sent: use(op, e)
        default: break
        }
    }

    mutating func use(_ op: AttributeOperation, _ e: TimelineEvent) {
        let used: Used
        var name = Describe.handle(op.handle)
        if let a = op.attribute {
            switch a.role {
            case .value:
                used = .characteristic(a.uuid)
                name = a.displayName
            case .descriptor where a.characteristic != nil:
                used = .characteristic(a.characteristic!)
                name = a.displayName
            default: used = .handle(op.handle)
            }
        } else {
            used = .handle(op.handle)
        }
        update(e, create: false) { s in
            guard s.used.count < Self.maximumUsed, s.used.insert(used).inserted else { return }
            if s.usedNames.count < 4 { s.usedNames.append(name) }
            if s.usedFrames.count < 8 { s.usedFrames.append(e.frame) }
        }
    }

    public mutating func finish(at time: Int64, _ sink: FindingSink) {
        for k in order {
            guard let s = sessions[k], let d = s.fullDiscovery, s.characteristics >= max(1, minCharacteristics) else {
                continue
            }
            let used = s.used.count
            guard Double(used) <= maxUsedFraction * Double(s.characteristics) else { continue }
            var msg =
                "all \(s.services) primary services (Read By Group Type over 0x0001–0xFFFF) and \(s.characteristics) characteristics were discovered"
            if used == 0 {
                msg += ", but the session never read, wrote, subscribed to or was notified by any of them"
            } else {
                let names = s.usedNames.joined(separator: ", ") + (used > s.usedNames.count ? ", …" : "")
                msg += ", but the session used only \(used) of them (\(names)): discover by UUID"
            }
            sink.report(
                msg, connection: d.connection, peer: d.peer, handle: nil, time: d.time,
                frames: [d.frame] + (s.firstCharacteristicDiscovery.map { [$0] } ?? []) + s.usedFrames,
                evidence: .hci)
        }
    }
}

import BLEBytes
import BLETimeline

/// BLE008: notifications or indications the client never subscribed to on that connection.
///
/// A server notifies or indicates a value only while the client's Client Characteristic
/// Configuration enables it (Core 5.4 Vol 3 Part G 3.3.3.3, 4.10, 4.11). For a client that is
/// not bonded the configuration returns to "off" at every connection; for a bonded client it
/// persists across connections. So the rule judges a connection only when it can see where the
/// configuration came from:
///
/// - the connection's start (Connection Complete) is in the capture, else the CCCD may have
///   been written before it; on a connection that started before the capture, a value whose
///   CCCD write is in the capture is judged from that write on (its configuration is known);
/// - no encryption was started on it without a pairing on the same connection (that uses a
///   key from an earlier bond, and the server may keep a configuration written on an earlier
///   connection, possibly before the capture);
/// - the same peer did not subscribe to the value on an earlier connection of this capture
///   (it may be bonded without the capture showing it);
/// - no subscription-like write went to a handle whose role was never discovered.
///
/// Otherwise the connection is reported as not evaluable. One finding per connection, value
/// handle and kind (notification/indication), with the count, so a 60 s stream is one finding.
public struct NotifyWithoutSubscription: LintRule {
    public static let descriptor = RuleDescriptor(
        id: "BLE008", slug: "notify-without-subscription", title: "Notification without subscription",
        defaultSeverity: .warning,
        summary: """
            Notifications or indications of a characteristic value arrived (or, peripheral side, were sent) \
            on a connection where the client had not enabled them in the characteristic's CCCD: no CCCD write \
            on that connection, a CCCD write that enabled the other kind only, or notifications after the \
            client turned them off. Judged only where the whole connection is in the capture (or, on a \
            connection that started before it, from a CCCD write in the capture on) and no bond \
            could carry a subscription over (encryption started with a key from an earlier pairing, or the same \
            peer subscribed on an earlier connection); those connections are reported as not evaluable.
            """,
        enforces: [
            "A central subscribes on every connection to the characteristics that offer Notify or Indicate: a peer it is not bonded with forgets the subscription at disconnection.",
            "A peripheral sends updates only to the centrals that subscribed.",
        ],
        references: [
            .apple("CBPeripheral.setNotifyValue(_:for:)"),
            .apple("CBPeripheralManagerDelegate.peripheralManager(_:central:didSubscribeTo:)"),
            .apple("CBPeripheralManager.updateValue(_:for:onSubscribedCentrals:)"),
            .android("BluetoothGatt.setCharacteristicNotification(BluetoothGattCharacteristic, boolean)"),
            .android("BluetoothGatt.writeDescriptor(BluetoothGattDescriptor, byte[])"),
            .android("BluetoothGattServerCallback.onDescriptorWriteRequest"),
            .android(
                "BluetoothGattServer.notifyCharacteristicChanged(BluetoothDevice, BluetoothGattCharacteristic, boolean, byte[])"
            ),
            .spec("Vol 3 Part G 3.3.3.3", "Client Characteristic Configuration"),
            .spec("Vol 3 Part G 4.10, 4.11", "notifications and indications"),
        ],
        evidence: [.hci],
        fix: """
            // Central: subscribe on every connection; an unbonded peripheral forgets it at disconnect.
            func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
                for c in service.characteristics ?? [] where c.properties.contains(.notify) {
                    peripheral.setNotifyValue(true, for: c)
                }
            }
            // Peripheral: send only to centrals that subscribed.
            func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral,
                                   didSubscribeTo characteristic: CBCharacteristic) {
                subscribers.append(central)
            }
            peripheralManager.updateValue(data, for: characteristic, onSubscribedCentrals: subscribers)
            """,
        party: .peer,
        android: PlatformAdvice(
            """
            On Android a client subscribes in two steps, on every connection to a peer it is not bonded \
            with: `BluetoothGatt.setCharacteristicNotification(characteristic, true)` routes the values to \
            `onCharacteristicChanged`, and a `writeDescriptor` of `ENABLE_NOTIFICATION_VALUE` (or \
            `ENABLE_INDICATION_VALUE`) to the characteristic's CCCD tells the peer to send them. A GATT \
            server app (`BluetoothGattServer`) records each device's CCCD writes in \
            `BluetoothGattServerCallback.onDescriptorWriteRequest` and calls `notifyCharacteristicChanged` only \
            for devices that enabled it (Android's `BluetoothGatt` and `BluetoothGattServer` references). \
            Indications from handles below 0x0028 of an Android host (its own GATT service's Service Changed) \
            are the stack's, reported with the party `os-stack`.
            """,
            fix: """
                // Client: on every connection, after discoverServices().
                gatt.setCharacteristicNotification(characteristic, true)
                val cccd = characteristic.getDescriptor(UUID.fromString("00002902-0000-1000-8000-00805f9b34fb"))
                gatt.writeDescriptor(cccd, BluetoothGattDescriptor.ENABLE_NOTIFICATION_VALUE)  // API 33

                // Server: notify only devices that enabled it.
                override fun onDescriptorWriteRequest(device: BluetoothDevice, requestId: Int, descriptor: BluetoothGattDescriptor,
                                                      preparedWrite: Boolean, responseNeeded: Boolean, offset: Int, value: ByteArray) {
                    if (value.contentEquals(BluetoothGattDescriptor.ENABLE_NOTIFICATION_VALUE)) subscribers += device else subscribers -= device
                    if (responseNeeded) server.sendResponse(device, requestId, BluetoothGatt.GATT_SUCCESS, 0, null)
                }
                subscribers.forEach { server.notifyCharacteristicChanged(it, characteristic, false, data) }
                """))

    static let maximumConnections = 256
    static let maximumHandles = 512
    static let maximumPeers = 1024

    /// A value handle on one connection, seen from one side: `hostIsClient` is true when this
    /// host is the GATT client (it writes the CCCD, the peer notifies).
    struct Key: Hashable {
        var handle: UInt16
        var hostIsClient: Bool
    }

    /// The CCCD bits of one value: `bits` after frame `changedAt` (the Write Response), the
    /// union with the `previous` bits up to it.
    struct Configuration {
        var bits: UInt16
        var previous: UInt16
        var changedAt: Int

        func effective(at frame: Int) -> UInt16 { frame > changedAt ? bits : previous | bits }
    }

    /// Notifications of one value that no configuration allowed.
    struct Unsubscribed {
        var first: TimelineEvent
        var last: Int
        var count: Int
        var name: String
        var indication: Bool
        var configured: UInt16?
        /// The same peer subscribed to this value on that earlier connection: a bond could
        /// have carried the subscription over, if the link was encrypted.
        var carriedFrom: Int? = nil
    }

    struct Link {
        var number: Int
        var peer: BDAddr?
        var startFrame: Int
        var configuration: [Key: Configuration] = [:]
        /// A subscription-like write to an undiscovered handle, per side (client = host or not).
        var ambiguous: [Bool: Int] = [:]
        var pairedHere = false
        /// Encryption with a key from an earlier pairing (a bond): the Encryption Change's frame.
        var resumedBond: Int?
        /// Any Encryption Change on the link: without one no bond was used on it.
        var encrypted = false
        var unsubscribed: [Key: Unsubscribed] = [:]
        /// The connection started before the capture (first seen at `startFrame`, a CCCD write):
        /// only values whose CCCD write is in the capture can be judged.
        var startedBefore = false
    }

    var links: [Int: Link] = [:]
    /// The last notification or indication a configuration allowed for good (its frame after
    /// the CCCD's Write Response): the next one on the same value is allowed too unless an
    /// event in between changed something, and every other event this rule reads clears it. Saves
    /// the two hash lookups per notification that were 8 % of `lint`.
    var lastAllowed: (connection: Int, key: Key, indication: Bool)?
    /// Per peer, the value handles it subscribed to on earlier connections, with the connection.
    var earlier: [BDAddr: [Key: Int]] = [:]

    public static let observedEvents: TimelineEventClasses = [.connection, .gattRequests, .gattUpdates, .security]
    public static let observedFacts: HCIFactClasses = []

    public init(settings: RuleSettings) {}

    public static let readsATTOrSMP = true

    public static func notEvaluable(_ f: CaptureFacts) -> String? {
        if f.aclPackets == 0 && !f.hasAPITrace {
            return "the input holds no ACL data (no ATT traffic) and no API trace"
        }
        // No connection start: still evaluable where a CCCD write precedes notifications.
        return nil
    }

    public mutating func observe(_ e: TimelineEvent, _ sink: FindingSink) {
        switch e.kind {
        case .notification, .indication: break
        default: lastAllowed = nil
        }
        switch e.kind {
        case .connectionComplete:
            guard let c = e.connection else { return }
            if links.count >= Self.maximumConnections, links[c] == nil {
                sink.notEvaluable("more than \(Self.maximumConnections) connections open at once")
                return
            }
            links[c] = Link(number: c, peer: e.peer, startFrame: e.frame)
        case .subscribe(let op, let config):
            guard let c = e.connection else { return }
            if case .error = e.outcome { return }  // refused: nothing changed
            if links[c] == nil {
                // A connection that started before the capture: from this write on, the
                // configuration of its value is known.
                guard links.count < Self.maximumConnections else { return }
                links[c] = Link(number: c, peer: e.peer, startFrame: e.frame, startedBefore: true)
            }
            let hostIsClient = op.sent
            guard let vh = op.attribute?.characteristicValueHandle else {
                links[c]?.ambiguous[hostIsClient] = e.frame
                return
            }
            let key = Key(handle: vh, hostIsClient: hostIsClient)
            let old = links[c]?.configuration[key]?.bits ?? 0
            // Until the Write Response both the old and the new bits hold: the server may notify
            // as soon as it applied an enable, and notifications already in flight may follow a
            // disable.
            let at = e.outcome.responseFrame ?? e.frame
            if links[c]?.configuration[key] != nil || (links[c]?.configuration.count ?? 0) < Self.maximumHandles {
                links[c]?.configuration[key] = Configuration(bits: config, previous: old, changedAt: at)
            }
        case .write(let op, let variant):
            guard let c = e.connection, links[c] != nil, variant == .request || variant == .command else { return }
            // A write the capture cut, to a CCCD or an undiscovered handle, may have been a
            // subscription change: its value is not there to tell.
            if e.valueTruncated, op.attribute == nil || op.attribute?.isCCCD == true {
                links[c]?.ambiguous[op.sent] = e.frame
                return
            }
            guard op.attribute == nil, e.value.count == 2, let v = e.value.withView(GATTClientConfiguration.bits(of:)),
                (1...3).contains(v)
            else { return }
            links[c]?.ambiguous[op.sent] = e.frame
        case .pairingResponse:
            if let c = e.connection { links[c]?.pairedHere = true }
        case .encryptionChange:
            if let c = e.connection { links[c]?.encrypted = true }
            // Encryption started (even if it then failed) without a pairing on this connection:
            // the central used a key from an earlier bond.
            guard let c = e.connection, let l = links[c], !l.pairedHere, l.resumedBond == nil else { return }
            links[c]?.resumedBond = e.frame
        case .notification(let op):
            notified(e, op, indication: false, sink)
        case .indication(let op):
            notified(e, op, indication: true, sink)
        case .disconnection:
            if let c = e.connection { close(c, sink) }
        default:
            break
        }
    }

    mutating func notified(_ e: TimelineEvent, _ op: AttributeOperation, indication: Bool, _ sink: FindingSink) {
        guard let c = e.connection else { return }
        let key = Key(handle: op.handle, hostIsClient: !op.sent)
        if let last = lastAllowed, last.connection == c, last.key == key, last.indication == indication { return }
        guard let i = links.index(forKey: c) else {
            sink.notEvaluable(
                "notifications on a connection that started before the capture: its subscriptions could predate it")
            return
        }
        // The link is judged in place: reading it out (four dictionaries to retain and release)
        // for every notification was most of this rule's cost.
        if Self.notified(e, op, indication: indication, &links.values[i], earlier: earlier, sink) {
            lastAllowed = (c, key, indication)
        }
    }

    /// Judges one notification or indication; true when its value's configuration allowed it
    /// and will allow the next ones too (the CCCD's Write Response is behind).
    static func notified(
        _ e: TimelineEvent, _ op: AttributeOperation, indication: Bool, _ link: inout Link,
        earlier: [BDAddr: [Key: Int]], _ sink: FindingSink
    ) -> Bool {
        // The server sends notifications; the client configured them.
        let key = Key(handle: op.handle, hostIsClient: !op.sent)
        let bit: UInt16 = indication ? 0x2 : 0x1
        let configured = link.configuration[key]
        if let configured, configured.effective(at: e.frame) & bit != 0 {
            return e.frame > configured.changedAt && configured.bits & bit != 0
        }
        if link.startedBefore, configured == nil {
            sink.notEvaluable(
                "notifications on a connection that started before the capture, on a value whose CCCD write is not in the capture: its subscription could predate it"
            )
            return false
        }
        if let frame = link.ambiguous[key.hostIsClient], frame < e.frame {
            sink.notEvaluable(
                "notifications after a subscription-like write to an undiscovered handle, which may have been their CCCD"
            )
            return false
        }
        // The same peer subscribed on an earlier connection: a bonded client's subscription
        // persists (Vol 3 Part G 3.3.3.3), but a bond is used only on an encrypted link; judged
        // when the connection ends, whether it was ever encrypted.
        let carriedFrom = configured == nil ? link.peer.flatMap { earlier[$0]?[key] } : nil
        if var u = link.unsubscribed[key], u.indication == indication {
            u.count += 1
            u.last = e.frame
            link.unsubscribed[key] = u
        } else if link.unsubscribed[key] == nil, link.unsubscribed.count < Self.maximumHandles {
            let name =
                op.attribute.map { "\(Describe.handle(op.handle)) (\($0.displayName))" } ?? Describe.handle(op.handle)
            link.unsubscribed[key] = Unsubscribed(
                first: e, last: e.frame, count: 1, name: name, indication: indication,
                configured: configured?.bits, carriedFrom: carriedFrom)
        }
        return false
    }

    /// The connection ended: report what it showed, remember its subscriptions for the peer.
    mutating func close(_ c: Int, _ sink: FindingSink) {
        guard let link = links.removeValue(forKey: c) else { return }
        if let p = link.peer {
            var known = earlier[p] ?? [:]
            for (k, conf) in link.configuration where conf.bits != 0 && known.count < Self.maximumHandles {
                known[k] = c
            }
            if earlier[p] != nil || earlier.count < Self.maximumPeers { earlier[p] = known }
        }
        if !link.unsubscribed.isEmpty, link.resumedBond != nil {
            sink.notEvaluable(
                "notifications on a link encrypted with a key from an earlier pairing: a bonded client's subscriptions may predate the capture"
            )
            return
        }
        for (key, u) in link.unsubscribed.sorted(by: { $0.value.first.frame < $1.value.first.frame }) {
            if let from = u.carriedFrom, link.encrypted || link.pairedHere {
                sink.notEvaluable(
                    "notifications on \(Describe.handle(key.handle)) of connection \(link.number), not re-subscribed since connection \(from) of the same peer, on an encrypted link: a bonded client's subscription persists (Vol 3 Part G 3.3.3.3)"
                )
                continue
            }
            var frames = [u.first.frame, link.startFrame]
            if u.last != u.first.frame { frames.append(u.last) }
            var message = Self.message(u, hostIsClient: key.hostIsClient, platform: sink.platform)
            if let from = u.carriedFrom {
                message.text +=
                    " (the client subscribed on connection \(from), but this link was never encrypted, so no bond carried that subscription over)"
            }
            sink.report(
                message.text, connection: c, peer: link.peer, handle: key.handle, time: u.first.time, frames: frames,
                evidence: .hci, party: message.party)
        }
    }

    /// What happened and whose behaviour it is. A server that notifies an unsubscribed client
    /// breaks Vol 3 Part G 3.3.3.3 whatever the client did; when this host is the client, what
    /// matters to its app is whether it could have subscribed at all (Core Bluetooth delivers
    /// only what the app subscribed to, and drops the rest).
    static func message(_ u: Unsubscribed, hostIsClient: Bool, platform: Platform) -> (text: String, party: Party) {
        let android = platform == .android
        let kind = u.indication ? "indication" : "notification"
        let count = u.count == 1 ? "1 \(kind)" : "\(u.count) \(kind)s"
        var why = "no CCCD write on this connection enabled them"
        if let bits = u.configured {
            why =
                bits == 0
                ? "the client had turned them off in the CCCD"
                : "the CCCD enables \(ReadOrNotifyWithoutProperty.configurationName(bits)) only"
        }
        guard hostIsClient else {
            if isOSService(u, platform: platform) {
                return (
                    "this host sent \(count) on \(u.name) although \(why): the OS's own GATT service sent it (\(android ? "the Android stack keeps its GATT and GAP services below handle 0x0028, before any app's" : "Service Changed belongs to the stack's GATT service")), not an app; no app code sends or can stop it",
                    .osStack
                )
            }
            let advice =
                android
                ? "send with BluetoothGattServer.notifyCharacteristicChanged only to devices that enabled it (onDescriptorWriteRequest on the CCCD)"
                : "send only to subscribed centrals (peripheralManager(_:central:didSubscribeTo:))"
            return (
                "this host sent \(count) on \(u.name) although \(why): this host's GATT server (a peripheral app) updates a central that did not subscribe — \(advice)",
                .app
            )
        }
        let attribute: AttributeRef?
        switch u.first.kind {
        case .notification(let op), .indication(let op): attribute = op.attribute
        default: attribute = nil
        }
        let bit: UInt8 = u.indication ? 0x20 : 0x10
        guard let attribute else {
            return (
                "the peer sent \(count) on \(u.name) although \(why): the peer notifies unasked; the handle was never discovered, so whether the app could have subscribed is not known",
                .peer
            )
        }
        guard attribute.role == .value, let properties = attribute.properties, properties & bit != 0 else {
            let what =
                attribute.role == .value
                ? "a value without the \(u.indication ? "Indicate" : "Notify") property"
                : "no characteristic value (no CCCD to enable it)"
            return (
                android
                    ? "the peer sent \(count) on \(u.name), \(what): unsolicited, the peer's behaviour; the app cannot ask for them, having no Notify or Indicate property to enable in a CCCD"
                    : "the peer sent \(count) on \(u.name), \(what): unsolicited, the peer's behaviour; Core Bluetooth drops them and the app cannot subscribe to them",
                .peer
            )
        }
        let app: String
        if android {
            app =
                u.configured == 0
                ? "the app had turned them off (DISABLE_NOTIFICATION_VALUE written to the CCCD with writeDescriptor)"
                : "if the app wants these values it must call setCharacteristicNotification(characteristic, true) and write \(u.indication ? "ENABLE_INDICATION_VALUE" : "ENABLE_NOTIFICATION_VALUE") to the CCCD with writeDescriptor on every connection"
        } else {
            app =
                u.configured == 0
                ? "the app had turned them off (setNotifyValue(false, for:)), and Core Bluetooth drops what follows"
                : "Core Bluetooth drops what the app did not subscribe to: if the app wants these values it must call setNotifyValue(true, for:)"
        }
        return (
            "the peer sent \(count) on \(u.name) although \(why): the peer notifies a client that did not subscribe (Vol 3 Part G 3.3.3.3); \(app)",
            .peer
        )
    }

    static let serviceChanged = BluetoothUUID(uuid16: 0x2A05)

    /// A value of the OS's own GATT service on this host (the server side): Service Changed
    /// wherever the peer discovered it; on Android, also any handle below 0x0028, where the
    /// stack keeps its built-in GATT (from 0x0001) and GAP (from 0x0014) services before the
    /// first app service (AOSP's GATT_APP_START_HANDLE).
    static func isOSService(_ u: Unsubscribed, platform: Platform) -> Bool {
        let op: AttributeOperation?
        switch u.first.kind {
        case .notification(let o), .indication(let o): op = o
        default: op = nil
        }
        guard let op else { return false }
        if op.attribute?.uuid == serviceChanged { return true }
        return platform == .android && op.handle < 0x0028
    }

    public mutating func finish(at time: Int64, _ sink: FindingSink) {
        for c in links.keys.sorted() { close(c, sink) }
    }
}

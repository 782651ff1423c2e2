import Foundation

/// `CBL2CAPPSM`: an LE Protocol/Service Multiplexer (Core Vol 3 Part A 4.22; the dynamic range
/// an app's channel gets is 0x0080–0x00FF).
public typealias CBL2CAPPSM = UInt16

/// `CBL2CAPChannel`: an L2CAP connection-oriented channel in LE Credit Based Flow Control mode.
///
/// Modelled minimally: the simulator carries no credit-based channels, so no channel object is
/// ever handed out. The API exists so that an app using it compiles unchanged, and it fails the
/// way iOS does when the peer refuses the PSM (see `CBPeripheral.openL2CAPChannel(_:)`).
public class CBL2CAPChannel {
    /// The remote device (a `CBPeripheral` for a central, a `CBCentral` for a peripheral manager).
    public let peer: CBPeer!
    public let inputStream: InputStream!
    public let outputStream: OutputStream!
    public let psm: CBL2CAPPSM

    init(peer: CBPeer, psm: CBL2CAPPSM) {
        self.peer = peer
        self.psm = psm
        inputStream = InputStream(data: Data())
        outputStream = OutputStream(toMemory: ())
    }
}

/// `peripheralManager(_:didOpen:error:)`'s `CBPeripheralManagerDelegate` and the publish options.
public let CBPeripheralManagerL2CAPChannelEncryptionRequiredKey = "kCBL2CAPChannelEncryptionRequired"

extension CBPeripheral {
    /// Asks the peer for an LE credit-based channel on `PSM` (an L2CAP LE Credit Based Connection
    /// Request on the signalling channel, Core Vol 3 Part A 4.22). The simulated peripherals
    /// publish no channels, so the peer refuses it ("SPSM not supported", Part A 4.23) one
    /// connection event later, and the delegate's `peripheral(_:didOpen:error:)` gets a nil
    /// channel and `CBError.invalidParameters`, which is what Core Bluetooth reports for a
    /// refused PSM ("One or more parameters were invalid.", CBErrorDomain code 1: a macOS
    /// central opening a PSM its peer does not serve, embassy-rs/trouble issue 371). Not
    /// connected: nothing happens but Core Bluetooth's "API MISUSE" log line (the call is not
    /// one of the trace's recorded API calls).
    public func openL2CAPChannel(_ PSM: CBL2CAPPSM) {
        guard let m = manager else { return }
        guard m.state == .poweredOn, entry.hot.object === self, entry.hot.state == .connected, let link = entry.hot.link
        else {
            m.world.log(
                "[CoreBluetooth] API MISUSE: <CBPeripheral \(identifier.uuidString)> can only accept commands "
                    + "while in the connected state (openL2CAPChannel(_:))")
            return
        }
        let delay = 2 * micros(entry.device.connectionInterval)
        let number = link.number
        // Found again through the entry, not a `weak` capture (see `PeripheralEntry.object`).
        m.world.schedule(afterMicros: delay) { [entry, generation] in
            guard let p = entry.hot.object, p.generation == generation, let m = p.manager,
                entry.hot.link?.number == number
            else { return }
            let error = CBError(.invalidParameters)
            p.deliver(.didOpenL2CAPChannel(peripheral: p.identifier, psm: PSM, error: error.description), manager: m) {
                $0.peripheral(p, didOpen: nil, error: error)
            }
        }
    }
}

extension CBPeripheralManager {
    /// Publishes an LE credit-based channel and reports its PSM in
    /// `peripheralManager(_:didPublishL2CAPChannel:error:)`. PSMs come from the LE dynamic range
    /// (Core Vol 3 Part A 4.22) in publication order from 0xC1, the first value iOS and macOS
    /// are seen handing out (openradar 46227689: "193 and 194"). No central in the simulator
    /// opens it (`CBPeripheral.openL2CAPChannel(_:)` is refused), so
    /// `peripheralManager(_:didOpen:error:)` is never called.
    public func publishL2CAPChannel(withEncryption encryptionRequired: Bool) {
        guard requireL2CAPPoweredOn("publishL2CAPChannel(withEncryption:)") else { return }
        let psm = CBL2CAPPSM(0xC1 + publishedPSMs.count + unpublishedPSMCount)
        publishedPSMs.append(psm)
        world.schedule(afterMicros: Self.callbackDelayMicros) { [weak self] in
            guard let self else { return }
            self.deliver(.didPublishL2CAPChannel(psm: psm, error: nil)) {
                $0.peripheralManager(self, didPublishL2CAPChannel: psm, error: nil)
            }
        }
    }

    /// Removes a published channel; a PSM this manager did not publish fails with
    /// `CBError.invalidParameters`.
    public func unpublishL2CAPChannel(_ PSM: CBL2CAPPSM) {
        guard requireL2CAPPoweredOn("unpublishL2CAPChannel(_:)") else { return }
        let known = publishedPSMs.contains(PSM)
        if known {
            publishedPSMs.removeAll { $0 == PSM }
            unpublishedPSMCount += 1
        }
        let error = known ? nil : CBError(.invalidParameters)
        world.schedule(afterMicros: Self.callbackDelayMicros) { [weak self] in
            guard let self else { return }
            self.deliver(.didUnpublishL2CAPChannel(psm: PSM, error: error?.description)) {
                $0.peripheralManager(self, didUnpublishL2CAPChannel: PSM, error: error)
            }
        }
    }

    private func requireL2CAPPoweredOn(_ name: String) -> Bool {
        guard state == .poweredOn else {
            world.log(
                "[CoreBluetooth] API MISUSE: <CBPeripheralManager \(traceID)> can only accept this command "
                    + "while in the powered on state (\(name))")
            return false
        }
        return true
    }
}

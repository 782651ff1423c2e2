import BLEBytes
import CaptureIO

/// Whole H4 packets (type byte first) for the host–controller exchanges blecap synthesizes:
/// the simulator's btsnoop export, capture replay's export and the coming virtual controller.
/// Each is built by the typed PDU's encoder beside its decoder (Core 5.4 Vol 4 Part E); these
/// are the shapes those producers share (one free command slot, a single report, a single
/// completed packet).
public enum HCISynthesis {
    /// A command with its parameters (5.4.1).
    public static func command(_ opcode: UInt16, _ parameters: [UInt8] = []) -> [UInt8] {
        HCICommandPacket.h4Encoded(opcode: opcode, parameters: parameters)
    }

    /// Command Complete (7.7.14) with one free command slot; `returned` defaults to Success.
    public static func commandComplete(_ opcode: UInt16, _ returned: [UInt8] = [HCIError.success]) -> [UInt8] {
        HCICommandComplete.h4Encoded(numPackets: 1, opcode: opcode, returnParameters: returned)
    }

    /// Command Status (7.7.15) with one free command slot.
    public static func commandStatus(_ opcode: UInt16, status: UInt8 = HCIError.success) -> [UInt8] {
        HCICommandStatus(status: status, numPackets: 1, opcode: opcode).h4Encoded()
    }

    /// LE Connection Complete (7.7.65.1); `role` 0 central, 1 peripheral; clock accuracy 0.
    public static func leConnectionComplete(
        status: UInt8, handle: UInt16, role: UInt8 = HCIRole.central,
        peerType: UInt8, peer: BDAddr, interval: UInt16, latency: UInt16,
        timeout: UInt16
    ) -> [UInt8] {
        HCILEConnectionComplete(
            status: status, handle: handle, role: role, peerAddressType: peerType, peerAddress: peer,
            interval: interval, latency: latency, supervisionTimeout: timeout,
            centralClockAccuracy: 0
        ).h4Encoded()
    }

    /// LE Advertising Report (7.7.65.2) with one report.
    public static func advertisingReport(
        eventType: UInt8, addressType: UInt8, address a: BDAddr, data: [UInt8],
        rssi: Int8
    ) -> [UInt8] {
        var body = ByteWriter()
        data.withByteView {
            HCILEAdvertisingReportEntry(
                eventType: eventType, addressType: addressType, address: a, data: $0, rssi: rssi
            )
            .append(to: &body)
        }
        return body.bytes.withByteView { HCILEAdvertisingReport(declaredCount: 1, reports: $0).h4Encoded() }
    }

    /// Disconnection Complete (7.7.5), status Success.
    public static func disconnectionComplete(handle: UInt16, reason: UInt8) -> [UInt8] {
        HCIDisconnectionComplete(status: HCIError.success, handle: handle, reason: reason).h4Encoded()
    }

    /// Number Of Completed Packets (7.7.19): one handle, one packet.
    public static func completedPackets(handle: UInt16) -> [UInt8] {
        HCINumberOfCompletedPackets.h4Encoded([.init(handle: handle, count: 1)])
    }

    /// ACL data packets carrying one L2CAP basic frame (Vol 3 Part A 3.1) on `cid`, cut to
    /// `fragment` bytes of data each. Packet Boundary flags (Vol 4 Part E 5.4.2): host to
    /// controller First Non-Automatically-Flushable then Continuing; controller to host First
    /// Automatically Flushable then Continuing.
    public static func acl(
        handle: UInt16, cid: UInt16 = L2CAPChannel.att, payload: [UInt8], received: Bool,
        fragment: Int
    ) -> [[UInt8]] {
        L2CAPBasicFrame.aclPackets(
            channel: cid, payload: payload, handle: handle,
            first: received ? .firstFlushable : .firstNonFlushable, bufferSize: fragment)
    }

    /// Splits advertising data at AD-structure boundaries into an advertising PDU's data and a
    /// scan response's, 31 bytes each at most (Core Vol 3 Part C 11); what fits neither is dropped.
    public static func splitAdvertisingData(_ data: [UInt8]) -> (advertising: [UInt8], scanResponse: [UInt8]) {
        var adv: [UInt8] = []
        var rsp: [UInt8] = []
        var i = 0
        while i < data.count {
            let n = Int(data[i])
            guard n > 0, i + 1 + n <= data.count else { break }
            let structure = Array(data[i...(i + n)])
            if adv.count + structure.count <= 31, rsp.isEmpty {
                adv += structure
            } else if rsp.count + structure.count <= 31 {
                rsp += structure
            }
            i += 1 + n
        }
        return (adv, rsp)
    }
}

/// Role parameter of connection complete events (Vol 4 Part E 7.7.65.1).
public enum HCIRole {
    public static let central: UInt8 = 0x00
    public static let peripheral: UInt8 = 0x01
}

extension HCILEAdvertisingReportEntry {
    /// Event_Type values of legacy reports (Vol 4 Part E 7.7.65.2).
    public static let advInd: UInt8 = 0x00
    public static let advDirectInd: UInt8 = 0x01
    public static let advScanInd: UInt8 = 0x02
    public static let advNonconnInd: UInt8 = 0x03
    public static let scanResponse: UInt8 = 0x04
}

extension HCILEExtendedAdvertisingReportEntry {
    /// Event_Type bits (Vol 4 Part E 7.7.65.13).
    public static let connectableBit: UInt16 = 0x0001
    public static let scannableBit: UInt16 = 0x0002
    public static let directedBit: UInt16 = 0x0004
    public static let scanResponseBit: UInt16 = 0x0008
    public static let legacyBit: UInt16 = 0x0010
}

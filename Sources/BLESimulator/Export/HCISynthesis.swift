import BLEBytes

/// HCI packets for the central's side of a simulated run (Core 5.4 Vol 4 Part E), each with
/// its H4 type byte first. Package-visible so other modules of blecap that synthesize HCI (the
/// capture replay) build the same packets instead of copies.
package enum HCISynthesis {
    package static let reset: UInt16 = 0x0C03
    package static let disconnect: UInt16 = 0x0406
    package static let leReadBufferSize: UInt16 = 0x2002
    package static let leSetScanParameters: UInt16 = 0x200B
    package static let leSetScanEnable: UInt16 = 0x200C
    package static let leCreateConnection: UInt16 = 0x200D
    package static let leCreateConnectionCancel: UInt16 = 0x200E
    package static let leSetExtendedScanParameters: UInt16 = 0x2041
    package static let leSetExtendedScanEnable: UInt16 = 0x2042

    package static func command(_ opcode: UInt16, _ parameters: [UInt8] = []) -> [UInt8] {
        [H4.command] + le16(opcode) + [UInt8(parameters.count)] + parameters
    }

    package static func event(_ code: UInt8, _ parameters: [UInt8]) -> [UInt8] {
        [H4.event, code, UInt8(parameters.count)] + parameters
    }

    /// Command Complete (7.7.14) with one free command slot.
    package static func commandComplete(_ opcode: UInt16, _ returned: [UInt8] = [0x00]) -> [UInt8] {
        event(0x0E, [0x01] + le16(opcode) + returned)
    }

    /// Command Status (7.7.15).
    package static func commandStatus(_ opcode: UInt16, status: UInt8 = 0) -> [UInt8] {
        event(0x0F, [status, 0x01] + le16(opcode))
    }

    /// LE meta event (7.7.65).
    package static func leMeta(_ subevent: UInt8, _ parameters: [UInt8]) -> [UInt8] { event(0x3E, [subevent] + parameters) }

    /// LE Connection Complete (7.7.65.1), role central.
    package static func leConnectionComplete(status: UInt8, handle: UInt16, peerType: UInt8, peer: BDAddr,
                                     interval: UInt16, latency: UInt16, timeout: UInt16) -> [UInt8] {
        leMeta(0x01, [status] + le16(handle) + [0x00, peerType] + address(peer) + le16(interval) + le16(latency)
               + le16(timeout) + [0x00])
    }

    /// LE Advertising Report (7.7.65.2), one report.
    package static func advertisingReport(eventType: UInt8, addressType: UInt8, address a: BDAddr, data: [UInt8],
                                  rssi: Int8) -> [UInt8] {
        leMeta(0x02, [0x01, eventType, addressType] + address(a) + [UInt8(data.count)] + data + [UInt8(bitPattern: rssi)])
    }

    /// Disconnection Complete (7.7.5).
    package static func disconnectionComplete(handle: UInt16, reason: UInt8) -> [UInt8] {
        event(0x05, [0x00] + le16(handle) + [reason])
    }

    /// Number Of Completed Packets (7.7.19): one handle, one packet.
    package static func completedPackets(handle: UInt16) -> [UInt8] { event(0x13, [0x01] + le16(handle) + le16(1)) }

    /// ACL data packets carrying one L2CAP basic frame (Vol 3 Part A 3.1) on `cid`, cut to
    /// `fragment` bytes of data each. Packet Boundary flags (Vol 4 Part E 5.4.2): host to
    /// controller 0b00 first (non-flushable) then 0b01; controller to host 0b10 first
    /// (flushable) then 0b01.
    package static func acl(handle: UInt16, cid: UInt16 = 0x0004, payload: [UInt8], received: Bool,
                    fragment: Int) -> [[UInt8]] {
        let frame = le16(UInt16(payload.count)) + le16(cid) + payload
        var out: [[UInt8]] = []
        var offset = 0
        repeat {
            let end = min(frame.count, offset + max(1, fragment))
            let pb: UInt16 = offset == 0 ? (received ? 0b10 : 0b00) : 0b01
            let part = Array(frame[offset..<end])
            out.append([H4.acl] + le16((handle & 0x0FFF) | pb << 12) + le16(UInt16(part.count)) + part)
            offset = end
        } while offset < frame.count
        return out
    }

    package static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }

    /// BD_ADDR as HCI carries it: least significant byte first.
    package static func address(_ a: BDAddr) -> [UInt8] { (0..<6).map { UInt8(truncatingIfNeeded: a.rawValue >> UInt64(8 * $0)) } }

    /// Splits advertising data at AD-structure boundaries into an advertising PDU's data and a
    /// scan response's, 31 bytes each at most (Core Vol 3 Part C 11); what fits neither is dropped.
    package static func splitAdvertisingData(_ data: [UInt8]) -> (advertising: [UInt8], scanResponse: [UInt8]) {
        var adv: [UInt8] = [], rsp: [UInt8] = []
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

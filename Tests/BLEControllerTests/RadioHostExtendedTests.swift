import BLEBytes
import BLEController
import BLEPackets
import BLEReplay
import BLETimeline
import CaptureIO
import Foundation
import TestSupport
import Testing

/// Extended advertising, scanning and initiating over a controller (`blecap replay
/// --controller`): used when the capture did and the controller's Supported Commands have them,
/// else the legacy commands with a note.
@Suite struct RadioHostExtendedTests {
    /// Recorded on the central: the heart-rate belt D8:0D:18:00:00:01 (random) advertised in
    /// extended PDUs (event type 0x0001, connectable; primary and secondary PHY LE 1M), its
    /// advertising data 29 octets; the central scanned with the extended commands.
    static let capture = Fixtures.capture("bumble/clean_heart_rate.central.btsnoop")
    static let belt = BDAddr("D8:0D:18:00:00:01")!

    /// The captured advertising data, as the capture's session holds it.
    static func capturedData() throws -> [UInt8] {
        let replay = try CaptureReplay(path: capture)
        return try #require(replay.models.first?.connection.advertisement?.data)
    }

    /// The controller has the extended commands: the captured peripheral advertises with them,
    /// connectable, from the captured random address, with the captured data and PHYs, and no
    /// legacy advertising command is sent.
    @Test func advertisesAsCapturedWithTheExtendedCommands() throws {
        let controller = ScriptedController(requests: [])
        let run = try controller.run(capture: Self.capture)
        #expect(try run.end.get() == .sessionOver)
        let set = try #require(controller.parameters(of: HCIOpcode.leSetExtendedAdvertisingParameters).first)
        let p = set.withByteView(HCILESetExtendedAdvertisingParameters.init(parameters:))
        #expect(p.eventProperties == HCILESetExtendedAdvertisingParameters.connectableBit)
        #expect(p.ownAddressType == 1 && p.primaryPHY == 1 && p.secondaryPHY == 1 && p.advertisingHandle == 0)
        let address = try #require(controller.parameters(of: HCIOpcode.leSetAdvertisingSetRandomAddress).first)
        #expect(address.withByteView(HCILESetAdvertisingSetRandomAddress.init(parameters:)).randomAddress == Self.belt)
        let data = controller.parameters(of: HCIOpcode.leSetExtendedAdvertisingData).compactMap {
            $0.withByteView {
                HCILESetExtendedAdvertisingData(opcode: HCIOpcode.leSetExtendedAdvertisingData, parameters: $0)
            }
        }
        let captured = try Self.capturedData()
        #expect(captured.count == 29)
        #expect(data.map(\.data) == [captured] && data.first?.operation == HCILESetExtendedAdvertisingData.completeData)
        let enable = controller.parameters(of: HCIOpcode.leSetExtendedAdvertisingEnable)
        #expect(enable.first == [1, 1, 0, 0, 0, 0])
        // The capture's scan response report answered no scannable advertising: not played.
        #expect(controller.parameters(of: HCIOpcode.leSetExtendedScanResponseData).isEmpty)
        for legacy in [
            HCIOpcode.leSetAdvertisingParameters, HCIOpcode.leSetAdvertisingData, HCIOpcode.leSetAdvertisingEnable,
            HCIOpcode.leSetRandomAddress,
        ] {
            #expect(controller.parameters(of: legacy).isEmpty, "legacy 0x\(String(legacy, radix: 16)) sent")
        }
        // Enhanced Connection Complete and Extended Advertising Report unmasked.
        let mask = try #require(controller.parameters(of: HCIOpcode.leSetEventMask).first)
        #expect(mask[1] & 0x12 == 0x12)
    }

    /// The capture with a scan response from the belt as a scannable advertiser's: Bumble's
    /// controller reported one (event type 0x0008, the advertising data again) to the belt's
    /// connectable, non-scannable extended advertising, which no scanner receives over the air;
    /// here that report says scannable and scan response (0x000A, 7.7.65.13) and carries
    /// `scanResponse`, PHYs, SID and RSSI as reported. Written to a temporary file; the rest of
    /// the capture is as recorded.
    static func captureWithScanResponse(_ scanResponse: [UInt8]) throws -> String {
        let bytes = [UInt8](try #require(FileManager.default.contents(atPath: capture)))
        var out = Array(bytes[0..<16])
        var (o, replaced) = (16, 0)
        while o + 24 <= bytes.count {
            let length = bytes[(o + 4)..<(o + 8)].reduce(0) { $0 << 8 | Int($1) }
            let record = Array(bytes[o..<(o + 24 + length)])
            o += 24 + length
            let event: [UInt8]? = Array(record.dropFirst(25)).withByteView { body in
                guard record[24] == H4PacketType.event, let e = HCIEventPacket(body),
                    e.subeventCode == HCILESubeventCode.extendedAdvertisingReport,
                    let r = HCILEExtendedAdvertisingReport(parameters: e.subeventParameters)?.reports.first(where: {
                        $0.address == belt && $0.isScanResponse
                    })
                else { return nil }
                return scanResponse.withByteView { data in
                    var w = ByteWriter()
                    w.appendUInt8(HCILESubeventCode.extendedAdvertisingReport)
                    w.appendUInt8(1)
                    HCILEExtendedAdvertisingReportEntry(
                        eventType: HCILEExtendedAdvertisingReportEntry.scannableBit
                            | HCILEExtendedAdvertisingReportEntry.scanResponseBit,
                        addressType: r.addressType, address: r.address, primaryPHY: r.primaryPHY,
                        secondaryPHY: r.secondaryPHY, advertisingSID: r.advertisingSID, txPower: r.txPower,
                        rssi: r.rssi, periodicAdvertisingInterval: 0, directAddressType: 0,
                        directAddress: BDAddr(rawValue: 0), data: data
                    ).append(to: &w)
                    return w.bytes.withByteView {
                        HCIEventPacket(code: HCIEventCode.leMeta, parameters: $0).h4Encoded()
                    }
                }
            }
            guard let event else {
                out += record
                continue
            }
            var header = ByteWriter()
            header.appendUInt32BE(UInt32(event.count))
            header.appendUInt32BE(UInt32(event.count))
            out += header.bytes + Array(record[8..<24]) + event
            replaced += 1
        }
        #expect(replaced == 1)
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("blecap-scan-response-\(getpid())-\(UUID().uuidString).btsnoop").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(out)))
        return path
    }

    /// A captured scan response (the belt's Complete Local Name) with the extended commands: the
    /// set is connectable and scannable, which 7.8.53 allows with legacy PDUs only (ADV_IND's
    /// properties, LE 1M), with the captured data and the captured scan response in LE Set
    /// Extended Scan Response Data.
    @Test func aCapturedScanResponseGoesOutFromAScannableSet() throws {
        let name: [UInt8] = [0x08, 0x09] + Array("HRM-200".utf8)
        let path = try Self.captureWithScanResponse(name)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let controller = ScriptedController(requests: [])
        let run = try controller.run(capture: path)
        #expect(try run.end.get() == .sessionOver)
        let set = try #require(controller.parameters(of: HCIOpcode.leSetExtendedAdvertisingParameters).first)
        let p = set.withByteView(HCILESetExtendedAdvertisingParameters.init(parameters:))
        #expect(
            p.eventProperties
                == HCILESetExtendedAdvertisingParameters.connectableBit
                | HCILESetExtendedAdvertisingParameters.scannableBit | HCILESetExtendedAdvertisingParameters.legacyBit)
        #expect(p.primaryPHY == 1)
        func sent(_ opcode: UInt16) -> [HCILESetExtendedAdvertisingData] {
            controller.parameters(of: opcode).compactMap {
                $0.withByteView { HCILESetExtendedAdvertisingData(opcode: opcode, parameters: $0) }
            }
        }
        let data = sent(HCIOpcode.leSetExtendedAdvertisingData)
        #expect(data.map(\.data) == [try Self.capturedData()])
        let response = sent(HCIOpcode.leSetExtendedScanResponseData)
        #expect(response.map(\.data) == [name])
        #expect(response.first?.operation == HCILESetExtendedAdvertisingData.completeData)
        #expect(!controller.hostLog.contains { $0.contains("scan response is not played") }, "\(controller.hostLog)")
    }

    /// Without LE Set Extended Advertising Parameters in its Supported Commands, the same
    /// capture is advertised with the legacy commands, and the log says why.
    @Test func aControllerWithoutThemAdvertisesLegacyAndSaysSo() throws {
        let controller = ScriptedController(requests: [])
        var bits = [UInt8](repeating: 0xFF, count: 64)
        bits[36] &= ~(1 << 2)
        controller.answer = { opcode, _ in
            opcode == HCIOpcode.readLocalSupportedCommands
                ? [HCISynthesis.commandComplete(opcode, [HCIError.success] + bits)] : nil
        }
        let run = try controller.run(capture: Self.capture)
        #expect(try run.end.get() == .sessionOver)
        #expect(controller.parameters(of: HCIOpcode.leSetExtendedAdvertisingParameters).isEmpty)
        #expect(controller.parameters(of: HCIOpcode.leSetAdvertisingEnable).first == [1])
        let data = try #require(controller.parameters(of: HCIOpcode.leSetAdvertisingData).first)
        #expect(Array(data.dropFirst().prefix(Int(data[0]))) == (try Self.capturedData()))
        #expect(
            controller.parameters(of: HCIOpcode.leSetRandomAddress).first
                == HCILESetRandomAddress(address: Self.belt).encoded().suffix(6).map { $0 })
        #expect(
            controller.hostLog.contains {
                $0.contains("played as legacy ADV_IND") && $0.contains("LE Set Extended Advertising Parameters")
            }, "\(controller.hostLog)")
        let mask = try #require(controller.parameters(of: HCIOpcode.leSetEventMask).first)
        // The extended scanning commands are still there: the extended events stay unmasked.
        #expect(mask[1] & 0x12 == 0x12)
    }

    /// Data longer than one command takes goes in fragments, in order, each named as such.
    @Test func longDataGoesInFragments() {
        let data = (0..<600).map { UInt8(truncatingIfNeeded: $0) }
        let commands = HCILESetExtendedAdvertisingData.commands(
            opcode: HCIOpcode.leSetExtendedAdvertisingData, advertisingHandle: 0, data: data)
        #expect(commands.map(\.operation) == [1, 0, 2])
        #expect(commands.map(\.data.count) == [251, 251, 98])
        #expect(commands.flatMap(\.data) == data)
        let empty = HCILESetExtendedAdvertisingData.commands(
            opcode: HCIOpcode.leSetExtendedAdvertisingData, advertisingHandle: 0, data: [])
        #expect(empty.map(\.operation) == [3] && empty[0].encoded().count == 3 + 4)
    }

    /// Role central, the same capture's central played to its own air (blecap's virtual
    /// controller, which has the extended commands): it scans and connects with the extended
    /// commands as the capture did, to the captured peripheral, and the session plays.
    @Test func scansAndConnectsWithTheExtendedCommandsAsCaptured() throws {
        let run = try RadioCentralTests.run(pair: Self.capture, Self.capture)
        let ops = run.report.operations.flatMap { $0 }
        #expect(!ops.isEmpty && run.report.notServed.isEmpty)
        // At max speed the captured notifications come at once, before answers the capture
        // shows them after: reordered, every one there with its captured bytes.
        #expect(
            ops.allSatisfy { $0.verdict == .same || $0.verdict == .reordered }, "\(ops.filter { $0.verdict != .same })")
        let scan = RadioCentralTests.commands(run.hci, HCIOpcode.leSetExtendedScanParameters)
        let parameters = try #require(scan.first?.withByteView(HCILESetExtendedScanParameters.init(parameters:)))
        #expect(parameters.scanningPHYs == 0x01 && parameters.entries.map(\.scanType) == [1])
        #expect(RadioCentralTests.commands(run.hci, HCIOpcode.leSetExtendedScanEnable).count >= 2)
        let creates = RadioCentralTests.commands(run.hci, HCIOpcode.leExtendedCreateConnection)
        let c = try #require(creates.first?.withByteView { HCILEExtendedCreateConnection(parameters: $0) })
        #expect(creates.count == 1 && c.peerAddress == Self.belt && c.initiatingPHYs == 0x01)
        #expect(c.entries.map(\.connection.intervalMin) == [(try Self.timing()).interval])
        for legacy in [HCIOpcode.leSetScanParameters, HCIOpcode.leSetScanEnable, HCIOpcode.leCreateConnection] {
            #expect(RadioCentralTests.commands(run.hci, legacy).isEmpty, "legacy 0x\(String(legacy, radix: 16)) sent")
        }
    }

    static func timing() throws -> ConnectionTiming {
        try #require(try CaptureReplay(path: capture).models.first?.connection.timing)
    }

    /// `--connection N`: of two captured connections (D8:0D:18:00:00:01 then
    /// DF:E5:0B:00:00:08), only the second is advertised for and played.
    @Test func playsOnlyTheChosenConnection() throws {
        let capture = Fixtures.capture("bumble/two_peripherals_concurrent.central.btsnoop")
        let controller = ScriptedController(requests: [])
        var chosen: Bool?
        var offered: [Int] = []
        let run = try controller.run(
            capture: capture,
            choose: { virtual in
                offered = virtual.servableConnectionList.map(\.number)
                #expect(!virtual.playOnly(connection: 3))
                chosen = virtual.playOnly(connection: 2)
            })
        #expect(offered == [1, 2] && chosen == true)
        #expect(try run.end.get() == .sessionOver)
        let addresses =
            controller.parameters(of: HCIOpcode.leSetRandomAddress)
            + controller.parameters(of: HCIOpcode.leSetAdvertisingSetRandomAddress).map { Array($0.dropFirst()) }
        #expect(
            addresses == [HCILESetRandomAddress(address: BDAddr("DF:E5:0B:00:00:08")!).encoded().suffix(6).map { $0 }])
        #expect(run.report.notServed.isEmpty)
    }
}

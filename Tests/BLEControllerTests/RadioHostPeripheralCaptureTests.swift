import BLEBytes
import BLEController
import BLEPackets
import BLEReplay
import TestSupport
import Testing

/// `blecap replay --controller` (and `serve`) as peripheral from a capture recorded on the
/// peripheral itself (a dev kit's HCI log): the peripheral advertises as its own HCI commands
/// did and answers the captured central's requests with the captured bytes.
@Suite struct RadioHostPeripheralCaptureTests {
    /// Recorded on the heart-rate belt: frames 27–36 set its random address D8:0D:18:00:00:01
    /// and advertise (extended commands, legacy PDUs 0x0013: ADV_IND) the 29 octets of frame
    /// 33; frame 37 the central connects, frames 39–134 its requests and the belt's answers.
    static let capture = Fixtures.capture("bumble/clean_heart_rate.peripheral.btsnoop")
    static let belt = BDAddr("D8:0D:18:00:00:01")!

    /// The captured PDUs of the one connection: the central's (received) and the belt's
    /// answers (sent, notifications aside), as the capture holds them.
    static func captured() throws -> (requests: [[UInt8]], answers: [[UInt8]]) {
        let c = try #require(try CaptureReplay(path: capture).session.connections.first)
        #expect(!c.hostIsCentral)
        let pdus = Array(c.att)
        return (
            pdus.filter { !$0.sentByHost }.map(\.bytes),
            pdus.filter { $0.sentByHost && $0.opcode != 0x1B }.map(\.bytes)
        )
    }

    /// The model role peripheral plays: the connection seen from its central, the belt its
    /// peer at the address it advertised from, with the advertisement of frames 29–35.
    @Test func theConnectionIsSeenFromItsCentral() throws {
        let replay = try CaptureReplay(path: Self.capture)
        let captured = try #require(replay.session.connections.first)
        let setup = try #require(captured.hostAdvertisement)
        #expect(setup.handle == 0 && setup.eventProperties == 0x0013 && setup.randomAddress == Self.belt)
        let seen = try #require(replay.peripheralsAsPeers().models.first?.connection)
        #expect(seen.hostIsCentral && seen.summary.peer == Self.belt && seen.summary.peerAddressType == 1)
        let ad = try #require(seen.advertisement)
        #expect(ad.data == AdvertisingTimelineData.heartRate && ad.scanResponse.isEmpty && ad.sawAdvertising)
        // Extended report bits: connectable, scannable, legacy (ADV_IND); 100 ms.
        #expect(ad.extended && ad.eventType == 0x0013 && ad.intervalMicros == 100_000)
        var config = ControllerConfiguration()
        config.role = .peripheral
        #expect(VirtualController(replay: replay, configuration: config).servableConnections == 1)
    }

    @Test func playsThePeripheralItsOwnCaptureRecorded() throws {
        let (requests, answers) = try Self.captured()
        // Frame 39 Exchange MTU Request (247), frame 40 the Response (517), as tshark shows.
        #expect(requests.first == [0x02, 0xF7, 0x00] && answers.first == [0x03, 0x05, 0x02])
        #expect(requests.count == 19 && answers.count == 19)

        let controller = ScriptedController(requests: requests)
        let run = try controller.run(capture: Self.capture)
        #expect(try run.end.get() == .sessionOver)
        #expect(run.report.notServed.isEmpty)
        // It advertised from the address and with the data its HCI commands set.
        let address = try #require(controller.parameters(of: HCIOpcode.leSetRandomAddress).first)
        #expect(address.withByteView(HCILESetRandomAddress.init(parameters:))?.address == Self.belt)
        let data = try #require(controller.parameters(of: HCIOpcode.leSetAdvertisingData).first)
        let set = data.withByteView { HCILESetAdvertisingData(opcode: HCIOpcode.leSetAdvertisingData, parameters: $0) }
        #expect(set?.data == AdvertisingTimelineData.heartRate)
        let parameters = try #require(controller.parameters(of: HCIOpcode.leSetAdvertisingParameters).first)
        let p = parameters.withByteView(HCILESetAdvertisingParameters.init(parameters:))
        #expect(p.advertisingType == HCILEAdvertisingReportEntry.advInd && p.ownAddressType == 1)
        // Frames 29: interval 160 (100 ms).
        #expect(p.intervalMin == 160)
        // Every request answered with the captured bytes, in order.
        #expect(controller.answers == answers)
    }
}

/// clean_heart_rate.peripheral's frame 33 advertising data (tshark: Flags 0x06, 16-bit UUIDs
/// 180D 180F 180A, Appearance 0x0341, Complete Local Name "PulseBelt HR").
enum AdvertisingTimelineData {
    static let heartRate: [UInt8] =
        [0x02, 0x01, 0x06, 0x07, 0x03, 0x0D, 0x18, 0x0F, 0x18, 0x0A, 0x18, 0x03, 0x19, 0x41, 0x03, 0x0D, 0x09]
        + Array("PulseBelt HR".utf8)
}

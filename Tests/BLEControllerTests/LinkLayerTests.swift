import BLEBytes
import BLEController
import BLEPackets
import CaptureIO
import TestSupport
import Testing

/// Scanning, connecting, flow control, fragmentation and the end of the link, driven with HCI
/// packets built by BLEPackets' encoders and checked by its decoders.
@Suite struct LinkLayerTests {
    static let heartRate = Fixtures.capture("bumble/clean_heart_rate.central.btsnoop")
    static let peer = BDAddr("D8:0D:18:00:00:01")!

    /// Reset, the event mask and the LE event mask Bumble's host sets (Enhanced Connection Complete unmasked
    /// when `enhanced`).
    static func initialised(
        _ path: String = heartRate, enhanced: Bool = false,
        configure: (inout ControllerConfiguration) -> Void = { _ in }
    ) throws -> Bench {
        let bench = try Bench(path, configure: configure)
        _ = bench.command(HCIOpcode.reset)
        // LE Meta (bit 61) is not in the default event mask (Vol 4 Part E 7.3.1).
        _ = bench.command(HCIOpcode.setEventMask, ByteWriter.u64(0x3DBF_F807_FFFB_FFFF))
        let mask: UInt64 = enhanced ? 0x0000_0000_0000_1FFF : 0x0000_0000_0000_1DFF
        _ = bench.command(HCIOpcode.leSetEventMask, ByteWriter.u64(mask))
        return bench
    }

    static func reports(_ out: [[UInt8]]) -> [(BDAddr, [UInt8], Int8, UInt8)] {
        out.compactMap(Event.init).filter { $0.subevent == HCILESubeventCode.advertisingReport }.flatMap { e in
            Array(e.parameters.dropFirst()).withByteView { v in
                HCILEAdvertisingReport(parameters: v).map { r in
                    r.reports.map { ($0.address, $0.data.toArray(), $0.rssi, $0.eventType) }
                } ?? []
            }
        }
    }

    @Test func legacyScanReportsTheCapturedAdvertisingAndScanResponse() throws {
        let bench = try Self.initialised()
        let replay = bench.controller.replay
        let ad = try #require(replay.models.first?.connection.advertisement)
        _ = bench.command(
            HCIOpcode.leSetScanParameters,
            HCILESetScanParameters(scanType: 1, interval: 96, window: 96, ownAddressType: 1, filterPolicy: 0)
                .parameterBytes)
        _ = bench.command(HCIOpcode.leSetScanEnable, [1, 0])
        // The peer's reports (the capture's other advertiser, Thermo-1, is on the air too).
        let seen = Self.reports(bench.wait(250_000)).filter { $0.0 == Self.peer }
        // Every advertising event: the ADV_IND with the captured data, then the SCAN_RSP.
        let adv = seen.filter { $0.3 == HCILEAdvertisingReportEntry.advInd }
        let rsp = seen.filter { $0.3 == HCILEAdvertisingReportEntry.scanResponse }
        #expect(adv.count >= 2)
        #expect(adv.allSatisfy { $0.0 == Self.peer && $0.1 == ad.data && $0.2 == ad.rssi })
        #expect(rsp.count == adv.count)
        #expect(rsp.allSatisfy { $0.1 == ad.scanResponse })
        // Passive scanning: no scan responses; disabled: nothing.
        _ = bench.command(HCIOpcode.leSetScanEnable, [0, 0])
        #expect(Self.reports(bench.wait(300_000)).isEmpty)
    }

    @Test func extendedScanThenExtendedConnectGivesEnhancedConnectionComplete() throws {
        let bench = try Self.initialised(enhanced: true)
        var p = ByteWriter()
        p.appendUInt8(1)  // own address random
        p.appendUInt8(0)
        p.appendUInt8(1)  // LE 1M
        p.appendUInt8(1)  // active
        p.appendUInt16LE(96)
        p.appendUInt16LE(96)
        let ok = bench.command(HCIOpcode.leSetExtendedScanParameters, p.bytes).compactMap { Event($0)?.commandComplete }
        #expect(ok.first?.returned == [HCIError.success])
        _ = bench.command(HCIOpcode.leSetExtendedScanEnable, [1, 0, 0, 0, 0, 0])
        let reports = bench.wait(150_000).compactMap(Event.init).filter {
            $0.subevent == HCILESubeventCode.extendedAdvertisingReport
        }
        #expect(reports.count >= 2)
        let entries = reports.flatMap { e in
            Array(e.parameters.dropFirst()).withByteView { v in
                HCILEExtendedAdvertisingReport(parameters: v).map {
                    $0.reports.map { ($0.address, $0.isScanResponse, $0.isLegacy) }
                } ?? []
            }
        }
        // The captured peer used extended advertising (connectable, not legacy) and answered
        // scan requests.
        #expect(entries.contains { $0.0 == Self.peer && !$0.1 && !$0.2 })
        #expect(entries.contains { $0.0 == Self.peer && $0.1 })
        _ = bench.command(HCIOpcode.leSetExtendedScanEnable, [0, 0, 0, 0, 0, 0])
        // LE Extended Create Connection [v1] on LE 1M to the captured peer.
        var c = ByteWriter()
        c.appendUInt8(0)
        c.appendUInt8(1)
        c.appendUInt8(1)  // peer random
        c.appendAddress(Self.peer)
        c.appendUInt8(1)
        for v: UInt16 in [96, 96, 24, 24, 0, 72, 0, 0] { c.appendUInt16LE(v) }
        let status = bench.command(HCIOpcode.leExtendedCreateConnection, c.bytes).compactMap {
            Event($0)?.commandStatus
        }
        #expect(status.first?.status == HCIError.success)
        let done = bench.wait(100_000).compactMap(Event.init).first {
            $0.subevent == HCILESubeventCode.enhancedConnectionComplete
                || $0.subevent == HCILESubeventCode.enhancedConnectionCompleteV2
        }
        let e = try #require(done)
        let cc = try #require(
            Array(e.parameters.dropFirst()).withByteView {
                HCILEEnhancedConnectionComplete(
                    parameters: $0, version: e.subevent == HCILESubeventCode.enhancedConnectionCompleteV2 ? 2 : 1)
            })
        #expect(cc.status == HCIError.success)
        #expect(cc.peerAddress == Self.peer)
        #expect(cc.role == HCIRole.central)
        let timing = try #require(bench.controller.replay.models[0].connection.timing)
        #expect(cc.interval == timing.interval)
        #expect(bench.controller.connectedHandles == [cc.handle])
    }

    @Test func createConnectionCancelEndsTheAttemptWithUnknownConnectionIdentifier() throws {
        let bench = try Self.initialised()
        // A peer nobody captured: the attempt waits.
        let create = HCILECreateConnection(
            scanInterval: 96, scanWindow: 96, initiatorFilterPolicy: 0, peerAddressType: 0,
            peerAddress: BDAddr("11:22:33:44:55:66")!, ownAddressType: 1,
            connection: HCIConnectionParameters(
                intervalMin: 24, intervalMax: 24, maxLatency: 0, supervisionTimeout: 72, minCELength: 0, maxCELength: 0)
        )
        #expect(
            bench.send(create.h4Encoded()).compactMap { Event($0)?.commandStatus }.first?.status == HCIError.success)
        #expect(bench.wait(1_000_000).isEmpty)
        let out = bench.command(HCIOpcode.leCreateConnectionCancel).compactMap(Event.init)
        #expect(out.first?.commandComplete?.returned == [HCIError.success])
        let complete = try #require(out.first { $0.subevent == HCILESubeventCode.connectionComplete })
        #expect(complete.parameters[1] == HCIError.unknownConnectionIdentifier)
        // Nothing to cancel now.
        #expect(
            bench.command(HCIOpcode.leCreateConnectionCancel).compactMap { Event($0)?.commandComplete }.first?.returned
                == [HCIError.commandDisallowed])
    }

    /// Connects to the captured peer with LE Create Connection; returns the handle.
    static func connect(_ bench: Bench) throws -> UInt16 {
        let create = HCILECreateConnection(
            scanInterval: 96, scanWindow: 96, initiatorFilterPolicy: 0, peerAddressType: 1,
            peerAddress: peer, ownAddressType: 1,
            connection: HCIConnectionParameters(
                intervalMin: 24, intervalMax: 24, maxLatency: 0, supervisionTimeout: 72, minCELength: 0, maxCELength: 0)
        )
        bench.send(create.h4Encoded())
        let e = try #require(
            bench.wait(200_000).compactMap(Event.init).first { $0.subevent == HCILESubeventCode.connectionComplete })
        #expect(e.parameters[1] == HCIError.success)
        return UInt16(e.parameters[2]) | UInt16(e.parameters[3]) << 8
    }

    @Test func flowControlCountsBuffersAndCompletesThem() throws {
        let bench = try Self.initialised()
        let handle = try Self.connect(bench)
        let total = bench.controller.configuration.aclPackets
        // Write Commands (no answers) fill every buffer; one more is dropped and logged.
        let write = [ATTOpcode.writeCommand.rawValue, 0x14, 0x00, 0x01]
        for _ in 0..<total {
            bench.send(HCISynthesis.acl(handle: handle, payload: write, received: false, fragment: 251)[0])
        }
        #expect(bench.controller.freeACLBuffers == 0)
        let rejected = bench.controller.rejectedInput
        bench.send(HCISynthesis.acl(handle: handle, payload: write, received: false, fragment: 251)[0])
        #expect(bench.controller.rejectedInput == rejected + 1)
        // The next connection event frees them: Number Of Completed Packets for the handle.
        let completed = bench.wait(100_000).compactMap(Event.init).filter {
            $0.code == HCIEventCode.numberOfCompletedPackets
        }
        let counts = completed.flatMap { e in
            e.parameters.withByteView { v in HCINumberOfCompletedPackets(parameters: v).map { Array($0.entries) } ?? []
            }
        }
        #expect(counts.filter { $0.handle == handle }.reduce(0) { $0 + Int($1.count) } == total)
        #expect(bench.controller.freeACLBuffers == total)
    }

    @Test func fragmentedRequestsAreReassembled() throws {
        let bench = try Self.initialised()
        let handle = try Self.connect(bench)
        // Exchange MTU cut into 1-octet ACL fragments: one answer, the captured Server Rx MTU.
        for p in HCISynthesis.acl(
            handle: handle, payload: [ATTOpcode.exchangeMTURequest.rawValue, 0x00, 0x02], received: false, fragment: 1)
        {
            bench.send(p)
        }
        let acl = bench.wait(1_000_000).filter { $0.first == H4PacketType.acl }
        #expect(acl.count == 1)
        let model = bench.controller.replay.models[0]
        let captured = try #require(model.peerServer.serverRxMTU)
        let body = Array(acl[0].dropFirst(5))  // H4 type, ACL header
        #expect(body == [3, 0, 4, 0, ATTOpcode.exchangeMTUResponse.rawValue] + captured.littleEndianBytes)
        #expect(bench.controller.rejectedInput == 0)
    }

    @Test func hostDisconnectGivesDisconnectionCompleteWithLocalHostReason() throws {
        let bench = try Self.initialised()
        let handle = try Self.connect(bench)
        let out = bench.send(HCIDisconnect(handle: handle, reason: HCIError.remoteUserTerminatedConnection).h4Encoded())
            .compactMap(Event.init)
        #expect(out.first?.commandStatus?.status == HCIError.success)
        let dc = try #require(out.first { $0.code == HCIEventCode.disconnectionComplete })
        #expect(
            dc.parameters == [HCIError.success] + handle.littleEndianBytes + [HCIError.connectionTerminatedByLocalHost])
        #expect(bench.controller.connectedHandles.isEmpty)
        // Unknown handle now.
        let again = bench.send(HCIDisconnect(handle: handle, reason: 0x13).h4Encoded()).compactMap {
            Event($0)?.commandStatus
        }
        #expect(again.first?.status == HCIError.unknownConnectionIdentifier)
    }
}

extension ByteWriter {
    static func u64(_ v: UInt64) -> [UInt8] {
        var w = ByteWriter()
        w.appendUInt64LE(v)
        return w.bytes
    }
}

extension HCICommandEncodable {
    var parameterBytes: [UInt8] {
        var w = ByteWriter()
        appendParameters(to: &w)
        return w.bytes
    }
}

extension UInt16 {
    var littleEndianBytes: [UInt8] { [UInt8(truncatingIfNeeded: self), UInt8(truncatingIfNeeded: self >> 8)] }
}

/// The captured advertising interval: the median gap between one advertiser's reports in the
/// capture (read here from the captured controller's events) paces the controller's reports.
@Suite struct AdvertisingIntervalTests {
    @Test func reportsComeAtTheCapturedInterval() throws {
        let path = Fixtures.capture("bumble/nil_scan_all_services.central.btsnoop")
        let peer = BDAddr("D8:0D:18:00:00:01")!
        let host = try HostSide(path)
        // Captured: LE Extended Advertising Reports of the peer that are not scan responses.
        var times: [Int64] = []
        for p in host.controllerPackets {
            guard let e = Event(p.bytes), e.subevent == HCILESubeventCode.extendedAdvertisingReport else { continue }
            let hit = Array(e.parameters.dropFirst()).withByteView { v in
                HCILEExtendedAdvertisingReport(parameters: v).map {
                    $0.reports.contains { $0.address == peer && !$0.isScanResponse }
                } ?? false
            }
            if hit { times.append(p.time) }
        }
        let gaps = zip(times, times.dropFirst()).map { $1 - $0 }.sorted()
        #expect(gaps.count > 10)
        let captured = gaps[gaps.count / 2]
        // A default far from the captured interval, so that only the capture can explain the pace.
        let bench = try LinkLayerTests.initialised(path) { $0.advertisingIntervalMicros = 500_000 }
        _ = bench.command(HCIOpcode.leSetScanEnable, [1, 0])
        let seconds: Int64 = 3
        let reports = LinkLayerTests.reports(bench.wait(seconds * 1_000_000)).filter {
            $0.0 == peer && $0.3 == HCILEAdvertisingReportEntry.advInd
        }
        let expected = Double(seconds * 1_000_000) / Double(captured)
        #expect(
            abs(Double(reports.count) - expected) <= 2, "\(reports.count) reports, captured interval \(captured) µs")
    }
}

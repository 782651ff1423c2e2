import BLEDiagnose
import BLEPackets
import BLEPass
import BLETimeline
import CaptureIO
import TestSupport
import Testing

/// Reason 0x22 (LL Response Timeout): which LL procedure went unanswered, from the LL control
/// events an over-the-air timeline emits; reason 0x3D (MIC failure): the encryption start and
/// key before it. No shipped capture ends so, so the events are as TimelineBuilder makes them
/// (frames and times made up).
@Suite struct DiagnoserProcedureTests {
    typealias E = DiagnoserEventTests

    static func control(_ frame: Int, _ time: Int64, _ opcode: UInt8, byCentral: Bool) -> TimelineEvent {
        E.event(frame, time, .linkLayerControl(opcode: opcode, sentByCentral: byCentral, instant: nil))
    }

    @Test func llResponseTimeoutNamesTheUnansweredProcedure() throws {
        // This host is central; the peer answers the version exchange, never the feature request.
        let v = try #require(
            E.run(
                reason: HCIError.llResponseTimeout, side: .linkLoss, endTime: 41_000_000,
                [
                    Self.control(10, 500_000, LLControlOpcode.versionInd, byCentral: true),
                    Self.control(11, 600_000, LLControlOpcode.versionInd, byCentral: false),
                    Self.control(20, 1_000_000, LLControlOpcode.featureReq, byCentral: true),
                ]
            ).first)
        #expect(v.cause == "ll_response_timeout" && v.party == "link")
        #expect(v.signature == "ll_response_timeout role=central end=link_loss reason=0x22 procedure=LL_FEATURE_REQ")
        let step = try #require(v.steps.first { $0.what == "ll_procedure" })
        #expect(step.frames == [20, 100] && step.certainty == .inferred)
        #expect(step.text.hasPrefix("this host's controller sent LL_FEATURE_REQ 40.0 s before the end"))
        #expect(step.text.contains("the peer never answered it (LL_FEATURE_RSP, LL_REJECT_IND or LL_UNKNOWN_RSP)"))
    }

    @Test func anAnsweredOrRejectedProcedureIsNotTheOneThatTimedOut() throws {
        for answer in [LLControlOpcode.phyRsp, LLControlOpcode.rejectExtInd, LLControlOpcode.unknownRsp] {
            let v = try #require(
                E.run(
                    reason: HCIError.llResponseTimeout, side: .linkLoss,
                    [
                        Self.control(20, 1_000_000, LLControlOpcode.phyReq, byCentral: false),
                        Self.control(21, 1_100_000, answer, byCentral: true),
                    ]
                ).first)
            #expect(v.signature == "ll_response_timeout role=central end=link_loss reason=0x22")
            let step = try #require(v.steps.first { $0.what == "ll_procedure" })
            #expect(step.frames.isEmpty && step.text.contains("does not show the link layer's own procedures"))
        }
        // Its own PDU is no answer: a request the same side repeats is still waiting.
        let v = try #require(
            E.run(
                reason: HCIError.llResponseTimeout, side: .linkLoss,
                [
                    Self.control(20, 1_000_000, LLControlOpcode.pingReq, byCentral: false),
                    Self.control(21, 1_100_000, LLControlOpcode.pingRsp, byCentral: false),
                ]
            ).first)
        #expect(v.signature.hasSuffix("procedure=LL_PING_REQ"))
        #expect(v.steps.contains { $0.what == "ll_procedure" && $0.text.hasPrefix("the peer sent LL_PING_REQ") })
    }

    @Test func micFailureNamesTheEncryptionStartAndItsKey() throws {
        let v = try #require(
            E.run(
                reason: HCIError.connectionTerminatedMICFailure, side: .linkLoss, endTime: 5_000_000,
                [E.event(30, 1_000_000, .encryptionChange(status: 0, enabled: 1))]
            ).first)
        #expect(v.cause == "mic_failure")
        #expect(v.signature == "mic_failure role=central end=link_loss reason=0x3D key=bonded")
        let step = try #require(v.steps.first { $0.what == "key" })
        #expect(step.frames == [30, 100] && step.certainty == .inferred)
        #expect(step.text.contains("encryption started at frame 30, 4000 ms before the end, with a key bonded before"))

        let none = try #require(
            E.run(reason: HCIError.connectionTerminatedMICFailure, side: .linkLoss, []).first)
        #expect(none.signature.hasSuffix("key=unknown"))
        #expect(none.steps.contains { $0.what == "key" && $0.frames.isEmpty })
    }

    /// Live verdicts (`watch`) are the batch ones (`diagnose`) on every labelled capture, in
    /// the order they became final.
    @Test(arguments: DiagnoseScenarioTests.labelled)
    func liveVerdictsAreTheBatchVerdicts(_ capture: String) throws {
        let path = try Fixtures.existing(capture)
        let batch = Diagnoser()
        CapturePass(reader: try CaptureFile.open(path: path), name: path).run(batch)
        var handed: [Verdict] = []
        let live = Diagnoser(onVerdict: { handed.append($0) })
        CapturePass(reader: try CaptureFile.open(path: path), name: path).run(live)
        let want = batch.finish()
        #expect(!want.isEmpty)
        #expect(handed.sorted { ($0.startFrame, $0.connection ?? 0) < ($1.startFrame, $1.connection ?? 0) } == want)
    }
}

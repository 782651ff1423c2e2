import BLEPackets
import BLETimeline
import Testing

/// The values the per-frame loop copies are plain data (no reference inside): a copy is then a
/// `memcpy` and a destroy nothing, where a value holding a reference is copied and destroyed
/// through its value witness (a call and a switch over its cases, ~100 instructions per frame
/// of `blecap info` on the bench capture). A reference creeping back in fails here, not only
/// in a profile.
@Suite struct PlainDataTests {
    @Test func decodedFrameIsPlainData() {
        #expect(_isPOD(DecodedFrame.self))
        #expect(_isPOD(LinkLayerFrame.self))
    }

    /// Each part of a frame the decoder moves into the returned frame is at most 128 bytes: the
    /// optimiser moves such a part with a few register loads and stores, a larger one with a
    /// `memcpy` call whose 64-byte loads stall on the 16-byte stores that had just built the
    /// part (17 % of `blecap info` in `memmove` with a 218-byte layer).
    @Test func aFramesPartsAreSmallEnoughToMoveInline() {
        #expect(MemoryLayout<DecodedFrame.Layer>.size <= 128)
        #expect(MemoryLayout<LinkLayerFrame>.size <= 128)
        #expect(MemoryLayout<L2CAPReassemblyResult?>.size <= 128)
    }

    @Test func timelineEventIsPlainData() {
        #expect(_isPOD(TimelineEvent.self))
        #expect(_isPOD(TimelineEvent.Kind.self))
    }

    /// Every event is copied through the builder's queue and to each consumer: it must not
    /// grow when a kind is added. 245 and 101 bytes before and after `advertising.start` /
    /// `.stop` (whose setup is kept beside the events, `ScanFilterTables.advertising(_:)`).
    @Test func timelineEventDoesNotGrow() {
        #expect(MemoryLayout<TimelineEvent>.size <= 245)
        #expect(MemoryLayout<TimelineEvent.Kind>.size <= 101)
    }
}

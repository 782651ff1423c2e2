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

    @Test func timelineEventIsPlainData() {
        #expect(_isPOD(TimelineEvent.self))
        #expect(_isPOD(TimelineEvent.Kind.self))
    }
}

import BLEAir
import Testing

@Suite struct ATTBearerTests {
    @Test func exchangeSettlesOnTheSmallerRxMTUNeverBelowTheDefault() {
        #expect(ATTBearer.effectiveMTU(client: 517, server: 247) == 247)
        #expect(ATTBearer.effectiveMTU(client: 185, server: 517) == 185)
        // A peer announcing less than 23 does not shrink the bearer.
        #expect(ATTBearer.effectiveMTU(client: 517, server: 20) == 23)
        #expect(ATTBearer.effectiveMTU(client: 0, server: 0) == ATTBearer.defaultMTU)
    }
}

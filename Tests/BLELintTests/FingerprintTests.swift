import Testing

@testable import BLELint

/// Fingerprints normalise a finding's message; ASCII messages take a byte path
/// (`Fingerprint.normalizeASCII`) that must agree with the `Character` one.
@Suite struct FingerprintTests {
    @Test func asciiMessagesNormalizeAsByCharacter() {
        // The byte path must give what the Character path gives, for every string of up to four
        // characters over the bytes that matter (letters, digits, the decimal point, each kind of
        // whitespace, `\r\n` pairs, controls that are not whitespace) and for the corpus's messages.
        let alphabet: [String] = [
            "A", "z", "0", "7", ".", " ", "\t", "\n", "\r", "\u{0B}", "\u{0C}", "\u{1C}", "#", "-",
        ]
        var texts = [""]
        var level = [""]
        for _ in 0..<4 {
            level = level.flatMap { p in alphabet.map { p + $0 } }
            texts += level
        }
        texts += ReporterTests.oversized.findings.map(\.message)
        texts += ["Took 30.25 s,\r\n then  12 MORE bytes.", "v1.2.3 at 0.5x", "1.", ".5", "x\r\n\r\ny"]
        for t in texts {
            #expect(Fingerprint.normalizeASCII(t) == Fingerprint.normalizeCharacters(t), "\(Array(t.utf8))")
        }
        #expect(Fingerprint.normalizeASCII("café 1.5") == nil)
        #expect(Fingerprint.normalize("Café  1.5 S") == "café # s")
    }
}

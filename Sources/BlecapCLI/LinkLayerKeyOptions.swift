import ArgumentParser
import BLEPackets

/// `--ltk`: keys for the encrypted links of over-the-air captures, on every command that reads
/// a capture. Links whose legacy pairing is in the capture need none: blecap recovers that key.
struct LinkLayerKeyOptions: ParsableArguments {
    @Option(
        name: .customLong("ltk"),
        help: ArgumentHelp(
            "A Long Term Key for encrypted links of an over-the-air capture (repeatable): HEX, ADDRESS=HEX or 0xACCESSADDRESS=HEX.",
            discussion: """
                HEX is the key's 32 hex digits, most significant first (as crackle, Wireshark and \
                the specification write it). ADDRESS (AA:BB:CC:DD:EE:FF, either side's) or an access \
                address (0x8E89BED6) limits the key to those connections; each key is tried on a \
                link's first encrypted PDU and kept where its MIC verifies. A legacy pairing in the \
                capture needs no key: its TK is recovered from the exchange.
                """,
            valueName: "key"))
    var ltk: [String] = []

    func validate() throws {
        for text in ltk where LinkLayerKeys.parse(text) == nil {
            throw ValidationError(
                "--ltk: expected HEX, ADDRESS=HEX or 0xACCESSADDRESS=HEX with a 32-digit key, got '\(text)'")
        }
    }

    var keys: LinkLayerKeys {
        var keys = LinkLayerKeys()
        for text in ltk { if let k = LinkLayerKeys.parse(text) { keys.add(k) } }
        return keys
    }
}

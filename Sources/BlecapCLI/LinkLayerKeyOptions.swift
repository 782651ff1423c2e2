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

    /// The given keys that decrypted no link of the capture, as `--ltk` took them
    /// (`[SCOPE=]HEX`, the key most significant digit first); a note on standard error for each.
    func unmatched(_ decoder: FrameDecoder, path: String) -> [String] {
        let texts = decoder.linkLayer.keysMatchingNoLink.map { k -> String in
            let key = k.ltk.hexMSBFirst
            switch k.scope {
            case .anyConnection: return key
            case .address(let a): return "\(a)=\(key)"
            case .accessAddress(let aa): return "0x\(String(aa, radix: 16, uppercase: true))=\(key)"
            }
        }
        for t in texts {
            printError("note: --ltk \(t) matched no link in \(path)")
        }
        return texts
    }

    var keys: LinkLayerKeys {
        var keys = LinkLayerKeys()
        for text in ltk { if let k = LinkLayerKeys.parse(text) { keys.add(k) } }
        return keys
    }
}

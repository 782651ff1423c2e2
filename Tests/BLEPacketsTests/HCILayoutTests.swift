import BLEBytes
import BLEPackets
import Testing

/// Parameter sizes from the Core 5.4 Vol 4 Part E parameter tables, written down independently
/// of the decoder layouts: a block of exactly that size must decode without a note, one byte
/// less must be noted as truncated, one byte more as trailing.
@Suite struct HCILayoutTests {
    static let commandParameterSizes: [(UInt16, Int)] = [
        (0x0406, 3), (0x041D, 2), (0x0C01, 8), (0x0C03, 0), (0x0C31, 1), (0x0C33, 7), (0x0C63, 8),
        (0x0C6D, 2), (0x1001, 0), (0x1405, 2), (0x2001, 8), (0x2005, 6), (0x2006, 15), (0x200A, 1),
        (0x200B, 7), (0x200C, 2), (0x200D, 25), (0x200E, 0), (0x2010, 0), (0x2011, 7), (0x2012, 7),
        (0x2013, 14), (0x2016, 2), (0x2017, 32), (0x2019, 28), (0x201A, 18), (0x201B, 2), (0x2020, 14),
        (0x2021, 3), (0x2022, 6), (0x2024, 4), (0x2027, 39), (0x2028, 7), (0x2029, 0), (0x202D, 1),
        (0x202E, 2), (0x2030, 2), (0x2031, 3), (0x2032, 7), (0x2035, 7), (0x2036, 25), (0x203C, 1),
        (0x203D, 0), (0x2042, 6), (0x204E, 8), (0x2074, 2),
    ]

    /// Return parameter sizes, status included.
    static let returnSizes: [(UInt16, Int)] = [
        (0x0C03, 1), (0x1001, 9), (0x1002, 65), (0x1003, 9), (0x1005, 8), (0x1009, 7), (0x1405, 4),
        (0x2002, 4), (0x2003, 9), (0x2007, 2), (0x200F, 2), (0x2017, 17), (0x2018, 9), (0x201A, 3),
        (0x201B, 3), (0x2022, 3), (0x2023, 5), (0x202A, 2), (0x202B, 7), (0x202F, 9), (0x2030, 5),
        (0x2036, 2), (0x203A, 3), (0x203B, 2), (0x2060, 7),
    ]

    static let eventSizes: [(UInt8, Int)] = [
        (0x05, 4), (0x08, 4), (0x0C, 8), (0x0F, 4), (0x10, 1), (0x1A, 1), (0x30, 3), (0x57, 2), (0x59, 5),
    ]

    /// LE subevent parameter sizes, subevent code excluded.
    static let subeventSizes: [(UInt8, Int)] = [
        (0x01, 18), (0x03, 9), (0x04, 11), (0x05, 12), (0x06, 10), (0x07, 10), (0x08, 65), (0x09, 33),
        (0x0A, 30), (0x0C, 5), (0x11, 0), (0x12, 5), (0x13, 8), (0x14, 3), (0x29, 33),
    ]

    static func notes(_ describe: HCIDescribeFunction?, _ bytes: [UInt8]) -> [String] {
        let sink = HCIRecordingSink()
        bytes.withByteView { describe?($0, sink) }
        return sink.notes
    }

    static func check(_ describe: HCIDescribeFunction?, size: Int, first: UInt8 = 0, _ what: String) {
        #expect(describe != nil, "\(what) has no decoder")
        var exact = [UInt8](repeating: 0, count: size)
        if size > 0 { exact[0] = first }
        #expect(notes(describe, exact).isEmpty, "\(what) exact")
        if size > 1 { #expect(notes(describe, Array(exact.dropLast())) == ["!truncated parameters"], "\(what) short") }
        #expect(notes(describe, exact + [0]) == ["!unexpected trailing bytes"], "\(what) long")
    }

    @Test func commandParameterLayoutsHaveSpecSizes() {
        for (op, size) in Self.commandParameterSizes {
            Self.check(
                HCICommands.descriptor(for: op)?.describeParameters, size: size,
                "command \(Hex.string(UInt64(op), digits: 4))")
        }
    }

    @Test func returnLayoutsHaveSpecSizes() {
        for (op, size) in Self.returnSizes {
            Self.check(
                HCICommands.descriptor(for: op)?.describeReturn, size: size,
                "return \(Hex.string(UInt64(op), digits: 4))")
        }
    }

    @Test func eventLayoutsHaveSpecSizes() {
        for (code, size) in Self.eventSizes {
            Self.check(HCIEvents.descriptor(for: code)?.describe, size: size, "event \(code)")
        }
        for (code, size) in Self.subeventSizes {
            Self.check(HCIEvents.leSubeventDescriptor(for: code)?.describe, size: size, "subevent \(code)")
        }
    }

    @Test func hostNumberOfCompletedPacketsAndWriteLEHostSupported() {
        // Host Number Of Completed Packets: 1 handle, 0x0040 → 3 packets.
        let nocp = hciDescribeCommand("35 0c 05 01 40 00 03 00")
        #expect(
            nocp.lines.suffix(5) == [
                "num_handles=1", "{handle", "connection_handle=0x0040", "num_completed_packets=3", "}",
            ])
        let host = hciDescribeCommand("6d 0c 02 01 00")
        #expect(host.lines.suffix(2) == ["le_supported_host=0x01 Enabled", "unused=0x00"])
        // Read RSSI return: handle 1, -70 dBm.
        #expect(
            hciDescribeEvent("0e 07 01 05 14 00 01 00 ba").lines.suffix(2) == [
                "connection_handle=0x0001", "rssi=-70dBm",
            ])
        // LE Set PHY: handle 1, no preference bits clear, 2M both ways, options 0.
        let phy = hciDescribeCommand("32 20 07 01 00 00 02 02 00 00")
        #expect(
            phy.lines.suffix(4) == [
                "all_phys=0x00[]", "tx_phys=0x02[LE 2M]", "rx_phys=0x02[LE 2M]", "phy_options=0x0000",
            ])
    }

    /// Hostile input: pseudo-random blocks of 0–80 bytes through every decoder in the tables
    /// (parameters, returns, events, subevents). None may trap, and none may swallow a
    /// non-empty block without saying anything about it.
    @Test func randomBlocksNeverTrapOrVanish() {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            seed ^= seed << 13
            seed ^= seed >> 7
            seed ^= seed << 17
            return seed
        }
        var decoders: [HCIDescribeFunction] = []
        for d in HCICommands.table {
            if let f = d.describeParameters { decoders.append(f) }
            if let f = d.describeReturn { decoders.append(f) }
        }
        for d in HCIEvents.eventTable + HCIEvents.leSubeventTable { if let f = d.describe { decoders.append(f) } }
        #expect(decoders.count > 100)
        var silent = 0
        for f in decoders {
            for _ in 0..<60 {
                let count = Int(next() % 81)
                // Small first bytes make counts (num_reports, num_handles, lengths) plausible.
                let bytes = (0..<count).map { i in UInt8(truncatingIfNeeded: i < 2 ? next() % 4 : next()) }
                let sink = HCIRecordingSink()
                bytes.withByteView { f($0, sink) }
                if !bytes.isEmpty && sink.lines.isEmpty { silent += 1 }
            }
        }
        #expect(silent == 0)
    }
}

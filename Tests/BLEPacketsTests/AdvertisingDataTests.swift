import BLEBytes
import Testing

@testable import BLEPackets

/// Collects `describe` output as lines such as "begin Flags" or "uuid=180D", so a test can
/// compare a whole decode with what the spec (and tshark) say.
private final class LineSink: FieldSink {
    var lines: [String] = []

    func field(_ name: StaticString, _ value: FieldValue) { lines.append("\(name)=\(Self.render(value))") }
    func begin(_ name: StaticString) { lines.append("begin \(name)") }
    func end() { lines.append("end") }
    func note(_ text: StaticString) { lines.append("note \(text)") }

    static func render(_ value: FieldValue) -> String {
        switch value {
        case .uint(let v): return "\(v)"
        case .int(let v): return "\(v)"
        case .hex(let v, let digits): return Hex.string(v, digits: digits)
        case .bool(let b): return "\(b)"
        case .code(let v, let digits, let name):
            return Hex.string(v, digits: digits) + (name.map { " \($0)" } ?? "")
        case .flags(let v, let digits, let names):
            var set: [String] = []
            for (bit, name) in names.names.enumerated() where v >> UInt64(bit) & 1 == 1 {
                set.append(name.map { "\($0)" } ?? "bit \(bit)")
            }
            return Hex.string(v, digits: digits) + " [" + set.joined(separator: ", ") + "]"
        case .address(let a): return a.description
        case .uuid(let u): return u.description
        case .bytes(let b): return Hex.string(b)
        case .key128(let b): return Hex.string(Array(b.toArray().reversed()))
        case .text(let t): return String(decoding: t.base, as: UTF8.self)
        case .name(let n): return "\(n)"
        case .cString(let p): return String(cString: p)
        case .microseconds(let us): return "\(us)us"
        case .dBm(let d): return "\(d) dBm"
        }
    }
}

private func describe(_ bytes: [UInt8]) -> [String] {
    bytes.withByteView { v in
        let sink = LineSink()
        AdvertisingData.describe(v, into: sink)
        return sink.lines
    }
}

private func text(_ view: ByteView?) -> String? { view.map { String(decoding: $0.base, as: UTF8.self) } }

@Suite struct AdvertisingDataRealCaptureTests {
    /// clean_heart_rate.central.btsnoop frame 37, LE Extended Advertising Report from
    /// D8:0D:18:00:00:01 "PulseBelt HR" (bumble README scenario 1).
    static let pulseBelt: [UInt8] = Hex.bytes(
        """
        02 01 06
        07 03 0d 18 0f 18 0a 18
        03 19 41 03
        0d 09 50 75 6c 73 65 42 65 6c 74 20 48 52
        """)!
    // 02 01 06: Flags = LE General Discoverable | BR/EDR Not Supported
    // 07 03 ...: Complete List of 16-bit Service UUIDs {0x180D, 0x180F, 0x180A}
    // 03 19 41 03: Appearance 0x0341 (Heart Rate Sensor: Heart Rate Belt)
    // 0d 09 ...: Complete Local Name "PulseBelt HR"

    @Test func pulseBeltTypedAccessors() {
        Self.pulseBelt.withByteView { v in
            let ad = AdvertisingData(v)
            #expect(ad.map(\.type.rawValue) == [0x01, 0x03, 0x19, 0x09])
            #expect(ad.map(\.offset) == [0, 3, 11, 15])
            #expect(ad.flags == [.leGeneralDiscoverable, .brEDRNotSupported])
            #expect(Array(ad.serviceUUIDs) == [0x180D, 0x180F, 0x180A].map { BluetoothUUID(uuid16: $0) })
            #expect(ad.first(.completeServiceUUIDs16)?.type.isCompleteUUIDList == true)
            #expect(ad.appearance == 0x0341)
            #expect(text(ad.localName) == "PulseBelt HR")
            #expect(ad.shortenedLocalName == nil)
            #expect(ad.txPowerLevel == nil)
            #expect(ad.manufacturerData == nil)
            #expect(ad.advertises(service: BluetoothUUID(uuid16: 0x180D)))
            #expect(ad.advertises(service: BluetoothUUID("0000180D-0000-1000-8000-00805F9B34FB")!))
            #expect(!ad.advertises(service: BluetoothUUID(uuid16: 0x1809)))
            guard case .complete = ad.termination else {
                Issue.record("expected a complete walk")
                return
            }
        }
    }

    @Test func pulseBeltDescription() {
        #expect(
            describe(Self.pulseBelt) == [
                "begin Flags", "type=0x01 Flags", "length=2",
                "flags=0x06 [LE General Discoverable Mode, BR/EDR Not Supported]", "end",
                "begin Complete List of 16-bit Service UUIDs", "type=0x03 Complete List of 16-bit Service UUIDs",
                "length=7", "uuid=180D", "uuid=180F", "uuid=180A", "end",
                "begin Appearance", "type=0x19 Appearance", "length=3",
                "appearance=0x0341 Heart Rate Belt", "category=0x00D Heart Rate Sensor", "end",
                "begin Complete Local Name", "type=0x09 Complete Local Name", "length=13", "name=PulseBelt HR", "end",
            ])
    }

    /// clean_heart_rate.central.btsnoop frame 33: the decoy "Thermo-1" (README: Flags 0x06,
    /// 16-bit UUIDs {0x1809}, Appearance 0x0300).
    @Test func thermometerDecoy() {
        let bytes = Hex.bytes("02 01 06  03 03 09 18  03 19 00 03  09 09 54 68 65 72 6d 6f 2d 31")!
        bytes.withByteView { v in
            let ad = AdvertisingData(v)
            #expect(Array(ad.serviceUUIDs) == [BluetoothUUID(uuid16: 0x1809)])
            #expect(!ad.advertises(service: BluetoothUUID(uuid16: 0x180D)))
            #expect(ad.appearance == 0x0300)
            #expect(text(ad.completeLocalName) == "Thermo-1")
        }
        #expect(describe(bytes).contains("appearance=0x0300 Thermometer"))
    }

    /// nil_scan_all_services.central.btsnoop frame 45: "Tag-42", Manufacturer Specific Data
    /// for company 0x0059 (Nordic) with payload a1 b2 c3 d4.
    @Test func nordicManufacturerData() {
        let bytes = Hex.bytes("02 01 06  07 ff 59 00 a1 b2 c3 d4  07 09 54 61 67 2d 34 32")!
        bytes.withByteView { v in
            let ad = AdvertisingData(v)
            let m = ad.manufacturerData
            #expect(m?.companyID == 0x0059)
            #expect(m?.data.elementsEqual([0xA1, 0xB2, 0xC3, 0xD4]) == true)
            #expect(m?.companyName.map { String(cString: $0) } == "Nordic Semiconductor ASA")
            #expect(Array(ad.serviceUUIDs).isEmpty)
        }
        let lines = describe(bytes)
        #expect(
            lines[5...10] == [
                "begin Manufacturer Specific Data", "type=0xFF Manufacturer Specific Data", "length=7",
                "company id=0x0059", "company=Nordic Semiconductor ASA", "data=a1b2c3d4",
            ])
    }

    /// public/btsnoop-android_dsd6-fitness-band.log frame 213 (tshark: Flags 0x1a, Tx Power
    /// 12 dBm, Apple 0x004c with data 10 05 06 18 77 87 9d).
    @Test func appleManufacturerDataAndTxPower() {
        let bytes = Hex.bytes("02 01 1a  02 0a 0c  0a ff 4c 00 10 05 06 18 77 87 9d")!
        bytes.withByteView { v in
            let ad = AdvertisingData(v)
            // 0x1a: LE General Discoverable + both "simultaneous LE and BR/EDR" bits.
            #expect(
                ad.flags == [.leGeneralDiscoverable, .simultaneousLEAndBREDRController, .simultaneousLEAndBREDRHost])
            #expect(ad.txPowerLevel == 12)
            #expect(ad.manufacturerData?.companyID == 0x004C)
            #expect(ad.manufacturerData?.data.elementsEqual(Hex.bytes("10 05 06 18 77 87 9d")!) == true)
        }
        let lines = describe(bytes)
        #expect(lines.contains("tx power=12 dBm"))
        #expect(lines.contains("company=Apple, Inc."))
    }

    /// public/btsnoop-android_nexxtender-charger-pairing.log frame 326: Flags, Manufacturer
    /// Specific Data 0x0040 (Seiko Epson) 00 66 02, and an incomplete 128-bit UUID list whose
    /// single UUID tshark shows as 802a0000-4ef4-4e59-b573-2bed4a4ac159.
    @Test func incomplete128BitServiceList() {
        let bytes = Hex.bytes(
            """
            02 01 06
            06 ff 40 00 00 66 02
            11 06 59 c1 4a 4a ed 2b 73 b5 59 4e f4 4e 00 00 2a 80
            """)!
        let expected = BluetoothUUID("802A0000-4EF4-4E59-B573-2BED4A4AC159")!
        bytes.withByteView { v in
            let ad = AdvertisingData(v)
            #expect(Array(ad.serviceUUIDs) == [expected])
            let list = ad.first(.incompleteServiceUUIDs128)
            #expect(list?.type.isCompleteUUIDList == false)
            #expect(list?.uuidList?.count == 1)
            #expect(ad.manufacturerData?.companyID == 0x0040)
            #expect(ad.advertises(service: expected))
        }
        #expect(describe(bytes).contains("uuid=802A0000-4EF4-4E59-B573-2BED4A4AC159"))
    }

    /// Same file, frame 325: Complete Local Name "HOME", Service Data for the 128-bit UUID
    /// fd47416a-95fb-4206-88b5-b4a8045f75c0 with data 17 03 00 05 (tshark).
    @Test func serviceData128() {
        let bytes = Hex.bytes("05 09 48 4f 4d 45  15 21 c0 75 5f 04 a8 b4 b5 88 06 42 fb 95 6a 41 47 fd 17 03 00 05")!
        bytes.withByteView { v in
            let ad = AdvertisingData(v)
            let items = Array(ad.serviceData)
            #expect(items.count == 1)
            #expect(items.first?.uuid == BluetoothUUID("FD47416A-95FB-4206-88B5-B4A8045F75C0"))
            #expect(items.first?.data.elementsEqual([0x17, 0x03, 0x00, 0x05]) == true)
            #expect(text(ad.localName) == "HOME")
        }
        #expect(
            Array(describe(bytes)[5...9]) == [
                "begin Service Data - 128-bit UUID", "type=0x21 Service Data - 128-bit UUID", "length=21",
                "uuid=FD47416A-95FB-4206-88B5-B4A8045F75C0", "data=17030005",
            ])
    }

    /// public/btsnoop-android_pogo-plus-pairing-1970clock.log frame 13: "Pokemon GO Plus" with
    /// Service Data for the 32-bit UUID 0x21c50462, data 00 (tshark).
    @Test func serviceData32() {
        let bytes = Hex.bytes("02 01 06  10 09 50 6f 6b 65 6d 6f 6e 20 47 4f 20 50 6c 75 73  06 20 62 04 c5 21 00")!
        bytes.withByteView { v in
            let d = Array(AdvertisingData(v).serviceData)
            #expect(d.count == 1)
            #expect(d.first?.uuid == BluetoothUUID(uuid32: 0x21C5_0462))
            #expect(d.first?.data.elementsEqual([0x00]) == true)
        }
        #expect(describe(bytes).contains("uuid=21C50462"))
    }

    /// public/btsnoop-android_domyos-treadmill-ftms.log frame 250: the Exposure Notification
    /// beacon, complete list {0xFD6F} and 20 octets of Service Data for 0xFD6F.
    @Test func serviceData16() {
        let bytes = Hex.bytes("03 03 6f fd  17 16 6f fd fc e6 7c 3d a7 0d fc 6b a2 2a 8f c6 06 73 8a 8a d4 b9 dd 9c")!
        bytes.withByteView { v in
            let ad = AdvertisingData(v)
            #expect(Array(ad.serviceUUIDs) == [BluetoothUUID(uuid16: 0xFD6F)])
            let d = Array(ad.serviceData)
            #expect(d.first?.uuid.uuid16 == 0xFD6F)
            #expect(d.first?.data.count == 20)
        }
    }

    /// public/btsnoop-android_bk300.log.last frame 297: a Complete Local Name padded with NULs
    /// inside the structure, Peripheral Connection Interval Range 6–20 (7.5–25 ms, tshark) and
    /// Tx Power 0 dBm.
    @Test func connectionIntervalRangeAndNameWithNULs() {
        let bytes = Hex.bytes(
            """
            15 09 42 4b 33 30 30 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
            05 12 06 00 14 00
            02 0a 00
            """)!
        bytes.withByteView { v in
            let ad = AdvertisingData(v)
            // The NULs belong to the name as sent; the decoder keeps them.
            #expect(ad.completeLocalName?.count == 20)
            #expect(ad.completeLocalName?.prefix(5).elementsEqual(Array("BK300".utf8)) == true)
            let range = ad.peripheralConnectionIntervalRange
            #expect(range == ConnectionIntervalRange(minimum: 6, maximum: 20))
            #expect(range?.minimumMicroseconds == 7_500)
            #expect(range?.maximumMicroseconds == 25_000)
            #expect(ad.txPowerLevel == 0)
        }
        let lines = describe(bytes)
        #expect(lines.contains("interval min=7500us"))
        #expect(lines.contains("interval max=25000us"))
    }

    /// public/btsnoop-android_bk300.log.last frame 294: a legacy report padded to 31 octets
    /// with zeros after the last structure (early termination, Vol 3 Part C 11).
    @Test func zeroPaddingAfterLastStructure() {
        let bytes = Hex.bytes(
            "02 01 06  12 ff 5d 00 00 00 01 50 2c c6 be f3 25 00 00 00 00 00 00  00 00 00 00 00 00 00 00 00")!
        #expect(bytes.count == 31)
        bytes.withByteView { v in
            let ad = AdvertisingData(v)
            #expect(ad.map(\.type.rawValue) == [0x01, 0xFF])
            #expect(ad.manufacturerData?.companyID == 0x005D)
            guard case .earlyTermination(let offset, let padding) = ad.termination else {
                Issue.record("expected early termination")
                return
            }
            #expect(offset == 22)
            #expect(padding.count == 9)
        }
        let lines = describe(bytes)
        #expect(lines.last == "padding=000000000000000000")
        #expect(!lines.contains { $0.hasPrefix("note") })
    }

    /// public/btsnoop-android_sphero-large.log frame 134: Appearance 0x0180, Tx Power −2 dBm.
    @Test func appearanceCategoryOnlyAndNegativeTxPower() {
        let bytes = Hex.bytes("03 19 80 01  02 0a fe  13 09 48 69 67 68 77 61 79 20 63 6f 6e 74 72 6f 6c 6c 65 72")!
        bytes.withByteView { v in
            let ad = AdvertisingData(v)
            #expect(ad.appearance == 0x0180)
            #expect(ad.txPowerLevel == -2)
            #expect(text(ad.localName) == "Highway controller")
        }
        let lines = describe(bytes)
        #expect(lines.contains("appearance=0x0180 Remote Control"))
        #expect(lines.contains("tx power=-2 dBm"))
    }
}

@Suite struct AdvertisingDataSyntheticTests {
    @Test func emptyDataHasNoStructures() {
        let ad = AdvertisingData(.empty)
        #expect(ad.map(\.type).isEmpty)
        if case .complete = ad.termination {} else { Issue.record("empty data should be complete") }
        #expect(describe([]).isEmpty)
    }

    @Test func lengthPastTheEndKeepsTheValidPrefixAndTheRawTail() {
        // Flags, then a Complete Local Name claiming 5 octets of which only 3 remain.
        let bytes = Hex.bytes("02 01 06  05 09 41 42")!
        bytes.withByteView { v in
            let ad = AdvertisingData(v)
            #expect(ad.map(\.type) == [.flags])
            #expect(ad.localName == nil)
            #expect(ad.isTruncated)
            guard case .truncated(let offset, let raw) = ad.termination else {
                Issue.record("expected truncation")
                return
            }
            #expect(offset == 3)
            #expect(raw.elementsEqual([0x05, 0x09, 0x41, 0x42]))
        }
        #expect(
            Array(describe(bytes).suffix(6)) == [
                "begin Malformed AD Structure", "note AD structure length runs past the end of the data",
                "length=5", "type=0x09 Complete Local Name", "raw=05094142", "end",
            ])
    }

    @Test func loneLengthOctetIsTruncated() {
        #expect(
            describe([0x05]) == [
                "begin Malformed AD Structure", "note AD structure length runs past the end of the data",
                "length=5", "raw=05", "end",
            ])
    }

    @Test func maximumLengthOctetDoesNotOverflow() {
        [0xFF, 0xFF].withByteView { v in
            #expect(AdvertisingData(v).isTruncated)
        }
    }

    @Test func nonZeroBytesAfterEarlyTerminationAreNoted() {
        let bytes = Hex.bytes("02 01 06  00  03 19 41")!
        bytes.withByteView { v in
            let ad = AdvertisingData(v)
            #expect(ad.map(\.type) == [.flags])
            // The appearance after the terminator is not part of the data.
            #expect(ad.appearance == nil)
        }
        #expect(
            Array(describe(bytes).suffix(2)) == [
                "padding=00031941", "note non-zero octets after a zero AD length (early termination)",
            ])
    }

    @Test func unknownTypeKeepsRawBytes() {
        #expect(
            describe(Hex.bytes("03 ee 01 02")!) == [
                "begin Unknown AD Type", "type=0xEE", "length=3", "note unknown AD type", "data=0102", "end",
            ])
        #expect(ADType(0xEE).name == nil)
        #expect(ADType(0x2A).name.map { "\($0)" } == "Mesh Message")
        #expect(ADType(0x2B).name.map { "\($0)" } == "Mesh Beacon")
        #expect(ADType(0x30).name.map { "\($0)" } == "Broadcast_Name")
        #expect(ADType(0xFF).name.map { "\($0)" } == "Manufacturer Specific Data")
    }

    @Test func wrongLengthsAreNotedNotTrusted() {
        // Tx Power Level with two octets (must be one).
        let badTx = Hex.bytes("03 0a 01 02")!
        badTx.withByteView { v in #expect(AdvertisingData(v).txPowerLevel == nil) }
        #expect(
            describe(badTx) == [
                "begin Tx Power Level", "type=0x0A Tx Power Level", "length=3",
                "note AD data length is not valid for this type", "data=0102", "end",
            ])
        // Appearance with one octet.
        [0x02, 0x19, 0x41].withByteView { v in #expect(AdvertisingData(v).appearance == nil) }
        // 16-bit UUID list with an odd octet left over: the whole UUID is kept.
        let oddList = Hex.bytes("04 03 0d 18 0f")!
        oddList.withByteView { v in
            #expect(Array(AdvertisingData(v).serviceUUIDs) == [BluetoothUUID(uuid16: 0x180D)])
        }
        #expect(
            describe(oddList) == [
                "begin Complete List of 16-bit Service UUIDs", "type=0x03 Complete List of 16-bit Service UUIDs",
                "length=4", "uuid=180D", "note UUID list length is not a multiple of the UUID size", "trailing=0f",
                "end",
            ])
        // Manufacturer data shorter than a company identifier.
        [0x02, 0xFF, 0x4C].withByteView { v in #expect(AdvertisingData(v).manufacturerData == nil) }
        #expect(
            describe([0x02, 0xFF, 0x4C]).contains("note manufacturer specific data shorter than a company identifier"))
        // 128-bit service data with only 4 octets of UUID.
        let shortServiceData = Hex.bytes("05 21 01 02 03 04")!
        shortServiceData.withByteView { v in #expect(Array(AdvertisingData(v).serviceData).isEmpty) }
        #expect(describe(shortServiceData).contains("note AD data length is not valid for this type"))
    }

    @Test func emptyStructures() {
        // A length of 1 is a type with no data: an empty name, and Flags with no bit set.
        let bytes = Hex.bytes("01 09  01 01")!
        bytes.withByteView { v in
            let ad = AdvertisingData(v)
            #expect(ad.completeLocalName?.isEmpty == true)
            #expect(ad.flags == [])
        }
    }

    @Test func manufacturerDataOfUnknownCompanyHasNoName() {
        // 0x9BC2 is not an assigned company identifier (seen in btsnoop-samsung_nexxtender-charger.cfa).
        let lines = describe(Hex.bytes("04 ff c2 9b 01")!)
        #expect(lines.contains("company id=0x9BC2"))
        #expect(!lines.contains { $0.hasPrefix("company=") })
    }

    @Test func intervalsRolesAddressesAndOtherTypes() {
        let bytes = Hex.bytes(
            """
            03 1a a0 00
            04 2f 00 00 01
            02 1c 02
            08 17 01 00 00 ee ff c0 06
            08 1b 01 00 00 18 0d d8 01
            04 0d 0c 02 5a
            05 12 ff ff 20 00
            03 14 0d 18
            0f 24 17 2f 2f 65 78 61 6d 70 6c 65 2e 6f 72 67
            09 30 41 75 72 61 63 61 73 74
            """)!
        // 03 1a a0 00: Advertising Interval 0x00A0 × 0.625 ms = 100 ms
        // 04 2f 00 00 01: Advertising Interval - long, 3 octets: 0x010000 × 0.625 ms = 40.96 s
        // 02 1c 02: LE Role 2 (both, Peripheral preferred)
        // 07 17 ...: Public Target Address C0:FF:EE:00:00:01 plus one stray octet
        // 08 1b ...: LE Bluetooth Device Address D8:0D:18:00:00:01, random
        // 04 0d 0c 02 5a: Class of Device 0x5A020C (phone, smartphone)
        // 05 12 ff ff 20 00: interval range: no specific minimum, max 0x0020 = 40 ms
        // 03 14 0d 18: 16-bit solicitation list {0x180D}
        // 0f 24 17 ...: URI, scheme 0x17 "https:", then "//example.org"
        // 09 30 ...: Broadcast_Name "Auracast"
        bytes.withByteView { v in
            let ad = AdvertisingData(v)
            #expect(ad.advertisingInterval == 0xA0)
            #expect(ad.first(.advertisingIntervalLong)?.advertisingInterval == 0x01_0000)
            #expect(ad.leRole == .bothPeripheralPreferred)
            #expect(ad.publicTargetAddresses.map(Array.init) == [BDAddr("C0:FF:EE:00:00:01")!])
            #expect(ad.publicTargetAddresses?.remainder.count == 1)
            #expect(ad.randomTargetAddresses == nil)
            #expect(
                ad.first(.leBluetoothDeviceAddress)?.leBluetoothDeviceAddress?.address == BDAddr("D8:0D:18:00:00:01"))
            #expect(ad.first(.leBluetoothDeviceAddress)?.leBluetoothDeviceAddress?.isRandom == true)
            #expect(ad.classOfDevice == 0x5A_020C)
            #expect(ad.peripheralConnectionIntervalRange?.minimumMicroseconds == nil)
            #expect(ad.peripheralConnectionIntervalRange?.maximumMicroseconds == 40_000)
            #expect(Array(ad.solicitationUUIDs) == [BluetoothUUID(uuid16: 0x180D)])
            #expect(Array(ad.serviceUUIDs).isEmpty)
            #expect(ad.uri?.count == 14)
            #expect(text(ad.broadcastName) == "Auracast")
        }
        let lines = describe(bytes)
        for expected in [
            "interval=100000us", "interval=40960000us",
            "role=0x02 Peripheral and Central Role supported, Peripheral Role preferred",
            "address=C0:FF:EE:00:00:01", "note target address list length is not a multiple of 6", "trailing=06",
            "address=D8:0D:18:00:00:01", "address type=0x01 Random",
            "class of device=0x5A020C",
            "interval min=0xFFFF No specific minimum", "interval max=40000us",
            "uuid=180D",
            "scheme=0x0017 https:", "uri=//example.org",
            "name=Auracast",
        ] {
            #expect(lines.contains(expected), "missing \(expected)")
        }
    }

    /// Every prefix of a real report and a run of pseudo-random buffers decode without
    /// trapping, and structures never extend past the data.
    @Test func hostileInputNeverTraps() {
        let real = AdvertisingDataRealCaptureTests.pulseBelt
        for cut in 0...real.count {
            let prefix = Array(real[..<cut])
            prefix.withByteView { v in
                for s in AdvertisingData(v) { #expect(s.offset + 1 + s.length <= v.count) }
                _ = describe(prefix)
            }
        }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<500 {
            var buffer: [UInt8] = []
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let count = Int(state >> 58)  // 0…63
            for _ in 0..<count {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                buffer.append(UInt8(truncatingIfNeeded: state >> 33))
            }
            buffer.withByteView { v in
                let ad = AdvertisingData(v)
                var covered = 0
                for s in ad {
                    #expect(s.offset == covered)
                    covered = s.offset + 1 + s.length
                }
                #expect(covered <= v.count)
                _ = Array(ad.serviceUUIDs)
                _ = Array(ad.serviceData)
                _ = describe(buffer)
            }
        }
    }
}

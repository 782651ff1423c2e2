import BLEBytes
import Testing

@testable import BLEPackets

private func s(_ name: StaticString?) -> String? { name.map { "\($0)" } }

@Suite struct AssignedNumbersTests {
    @Test func everyTableIsSortedSoBisectionWorks() {
        for table in [
            GATTAssignedNumbers.services, GATTAssignedNumbers.characteristics, GATTAssignedNumbers.descriptors,
            GATTAssignedNumbers.units, GATTAssignedNumbers.members, AppearanceNames.table,
        ] {
            #expect(table.isSorted)
            #expect(table.count > 0)
            // Every key is found again through the bisection.
            for (i, key) in table.keys.enumerated() { #expect(s(table.name(key)) == s(table.names[i])) }
        }
    }

    // Spot checks against the SIG's Assigned Numbers lists (section 3.4, 3.7, 3.8), as the SIG's
    // YAML names them (scripts/assigned-numbers/data): 0x1800 and 0x1801 are "GAP" and "GATT".
    @Test func services() {
        let expected: [(UInt16, String)] = [
            (0x1800, "GAP"), (0x1801, "GATT"), (0x180A, "Device Information"),
            (0x180D, "Heart Rate"), (0x180F, "Battery"), (0x1809, "Health Thermometer"),
            (0x1812, "Human Interface Device"), (0x1826, "Fitness Machine"), (0x181D, "Weight Scale"),
            (0x185F, "Generic Voice Assistant"),
        ]
        for (uuid, name) in expected { #expect(s(GATTAssignedNumbers.serviceName(uuid)) == name) }
        #expect(GATTAssignedNumbers.serviceName(0x18FF) == nil)
        #expect(GATTAssignedNumbers.serviceName(0x2A37) == nil)
    }

    @Test func characteristics() {
        let expected: [(UInt16, String)] = [
            (0x2A00, "Device Name"), (0x2A01, "Appearance"), (0x2A05, "Service Changed"),
            (0x2A19, "Battery Level"), (0x2A24, "Model Number String"), (0x2A29, "Manufacturer Name String"),
            (0x2A37, "Heart Rate Measurement"), (0x2A38, "Body Sensor Location"),
            (0x2A39, "Heart Rate Control Point"), (0x2A4D, "Report"), (0x2AD9, "Fitness Machine Control Point"),
            (0x2B29, "Client Supported Features"), (0x2B2A, "Database Hash"),
            (0x2B3A, "Server Supported Features"), (0x2C00, "GMAP Role"), (0x2B8C, "CO₂ Concentration"),
            (0x2C38, "Voice Assistant Supported Features"),
        ]
        for (uuid, name) in expected { #expect(s(GATTAssignedNumbers.characteristicName(uuid)) == name) }
        #expect(GATTAssignedNumbers.characteristicName(0x2CFF) == nil)
    }

    @Test func descriptorsAndDeclarations() {
        let expected: [(UInt16, String)] = [
            (0x2900, "Characteristic Extended Properties"), (0x2901, "Characteristic User Description"),
            (0x2902, "Client Characteristic Configuration"), (0x2903, "Server Characteristic Configuration"),
            (0x2904, "Characteristic Presentation Format"), (0x2908, "Report Reference"),
            (0x2915, "IMD Trigger Setting"),
        ]
        for (uuid, name) in expected { #expect(s(GATTAssignedNumbers.descriptorName(uuid)) == name) }
        #expect(s(GATTAssignedNumbers.declarationName(0x2800)) == "Primary Service")
        #expect(s(GATTAssignedNumbers.declarationName(0x2801)) == "Secondary Service")
        #expect(s(GATTAssignedNumbers.declarationName(0x2802)) == "Include")
        #expect(s(GATTAssignedNumbers.declarationName(0x2803)) == "Characteristic")
        #expect(GATTAssignedNumbers.declarationName(0x2804) == nil)
        #expect(s(GATTAssignedNumbers.unitName(0x272F)) == "Celsius temperature (degree Celsius)")
        #expect(s(GATTAssignedNumbers.unitName(0x27C9)) == "Gravity (gₙ)")
    }

    @Test func nameForAnyUUID() {
        #expect(s(GATTAssignedNumbers.name(for: BluetoothUUID(uuid16: 0x2803))) == "Characteristic")
        #expect(
            s(GATTAssignedNumbers.name(for: BluetoothUUID("0000180D-0000-1000-8000-00805F9B34FB")!)) == "Heart Rate")
        #expect(
            s(GATTAssignedNumbers.name(for: BluetoothUUID(uuid16: 0x2902))) == "Client Characteristic Configuration")
        #expect(s(GATTAssignedNumbers.name(for: BluetoothUUID(uuid16: 0xFE59))) == "Nordic Semiconductor ASA")
        #expect(
            s(GATTAssignedNumbers.name(for: BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")!))
                == "Nordic UART Service")
        #expect(
            s(GATTAssignedNumbers.name(for: BluetoothUUID("6E400003-B5A3-F393-E0A9-E50E24DCCA9E")!)) == "Nordic UART TX"
        )
        // A vendor UUID nobody named, and a 32-bit UUID with no 16-bit alias.
        #expect(GATTAssignedNumbers.name(for: BluetoothUUID("FD47416A-95FB-4206-88B5-B4A8045F75C0")!) == nil)
        #expect(GATTAssignedNumbers.name(for: BluetoothUUID(uuid32: 0x21C5_0462)) == nil)
        #expect(GATTAssignedNumbers.name(0x0000) == nil)
    }

    @Test func appearance() {
        #expect(s(AppearanceNames.name(0x0341)) == "Heart Rate Belt")
        #expect(s(AppearanceNames.categoryName(0x0341)) == "Heart Rate Sensor")
        #expect(AppearanceNames.category(0x0341) == 0x00D)
        #expect(AppearanceNames.subcategory(0x0341) == 0x01)
        #expect(s(AppearanceNames.name(0x0300)) == "Thermometer")
        #expect(s(AppearanceNames.name(0x0C80)) == "Weight Scale")
        #expect(s(AppearanceNames.name(0x03C1)) == "Keyboard")
        #expect(s(AppearanceNames.name(0x0180)) == "Remote Control")
        #expect(s(AppearanceNames.name(0x0000)) == "Unknown")
        // An unassigned subcategory of a known category: no name, but the category is known.
        #expect(AppearanceNames.name(0x0345) == nil)
        #expect(s(AppearanceNames.categoryName(0x0345)) == "Heart Rate Sensor")
        #expect(AppearanceNames.name(0xFFC0) == nil)
        #expect(AppearanceNames.categoryName(0xFFFF) == nil)
    }

    @Test func companies() {
        func name(_ id: UInt16) -> String? { CompanyIdentifiers.string(id) }
        #expect(name(0x004C) == "Apple, Inc.")
        #expect(name(0x0059) == "Nordic Semiconductor ASA")
        #expect(name(0x0006) == "Microsoft")
        #expect(name(0x0000) == "Ericsson Technology Licensing")
        #expect(name(0x9BC2) == nil)  // "not assigned" in libbluetooth
        #expect(name(0xFFFF) == "internal use")
        #expect(CompanyIdentifiers.name(0x004C) != nil)
    }
}

@Suite struct MemberUUIDRoleTests {
    @Test func memberNamesAreForServicesOnly() {
        let fff3 = BluetoothUUID(uuid16: 0xFFF3)
        #expect(s(GATTAssignedNumbers.name(for: fff3, as: .service)) == "FiRa Consortium")
        #expect(GATTAssignedNumbers.name(for: fff3, as: .characteristic) == nil)
        #expect(GATTAssignedNumbers.name(for: fff3, as: .descriptor) == nil)
        #expect(GATTAssignedNumbers.memberNote(for: fff3, as: .characteristic) == "member UUID of FiRa Consortium")
        #expect(GATTAssignedNumbers.memberNote(for: fff3, as: .service) == nil)
        // SIG attribute types keep their names in every role.
        let cccd = BluetoothUUID(uuid16: 0x2902)
        #expect(s(GATTAssignedNumbers.name(for: cccd, as: .descriptor)) == "Client Characteristic Configuration")
        #expect(GATTAssignedNumbers.memberNote(for: cccd, as: .descriptor) == nil)
        #expect(
            s(GATTAssignedNumbers.name(for: BluetoothUUID(uuid16: 0x2A37), as: .characteristic))
                == "Heart Rate Measurement")
    }
}

import BLEBytes
import BLEPackets

/// The extended advertising, scanning and initiating commands (Core 5.4 Vol 4 Part E 7.8.53–56,
/// 7.8.64–66) for `RadioHost`: used when the capture used them and the controller's
/// Supported_Commands (6.27) has them, else the legacy ones with a note. A host uses one set
/// or the other until the next Reset (3.1.1): once extended, scanning and initiating both are.
extension RadioHost {
    /// Whether Supported_Commands has the command (its octet and bit in `ControllerCommand`'s
    /// table, the one the virtual controller claims by). False when the controller did not
    /// answer Read Local Supported Commands.
    func controllerSupports(_ opcode: UInt16) -> Bool {
        guard let bits = supportedCommands, let c = ControllerCommand.byOpcode[opcode], let octet = c.octet,
            octet < bits.count
        else { return false }
        return bits[octet] & (1 << UInt8(c.bit)) != 0
    }

    /// The first of `opcodes` the controller lacks, by name; nil when it has them all.
    private func missing(_ opcodes: [UInt16]) -> String? {
        opcodes.first { !controllerSupports($0) }.map { "HCI \(HCICommands.name(for: $0))" }
    }

    /// The first extended advertising command the controller lacks (the random address of a
    /// set too when `random`), nil when it has them all.
    func missingExtendedAdvertisingCommand(random: Bool) -> String? {
        missing(
            [
                HCIOpcode.leSetExtendedAdvertisingParameters, HCIOpcode.leSetExtendedAdvertisingData,
                HCIOpcode.leSetExtendedAdvertisingEnable,
            ] + (random ? [HCIOpcode.leSetAdvertisingSetRandomAddress] : []))
    }

    /// The first extended scanning or initiating command the controller lacks.
    var missingExtendedScanningCommand: String? {
        missing([
            HCIOpcode.leSetExtendedScanParameters, HCIOpcode.leSetExtendedScanEnable,
            HCIOpcode.leExtendedCreateConnection,
        ])
    }

    /// LE event mask bits for a controller with any extended command: LE Enhanced Connection
    /// Complete (bit 9, what LE Extended Create Connection and extended advertising report a
    /// link with when unmasked, 7.7.65.10) and LE Extended Advertising Report (bit 12).
    var extendedEventMask: UInt64 {
        missingExtendedAdvertisingCommand(random: false) == nil || missingExtendedScanningCommand == nil
            ? 1 << 9 | 1 << 12 : 0
    }

    /// The advertising set blecap uses.
    static let advertisingSet: UInt8 = 0

    /// Extended advertising as captured on set 0: parameters (connectable, on the captured
    /// PHYs, LE 1M where the capture does not show them or the controller refuses them), the
    /// set's random address, the data, then advertising on (7.8.53, 7.8.52, 7.8.54, 7.8.56).
    /// With a captured scan response the set is connectable and scannable, which 7.8.53 allows
    /// with legacy PDUs only: ADV_IND's properties on LE 1M, the captured scan response in LE Set
    /// Extended Scan Response Data (7.8.55); where the captured data does not fit a legacy PDU or
    /// the controller lacks that command, connectable alone, and the scan response is not played.
    func advertiseExtended(_ ad: CapturedAdvertising, _ e: ExtendedAdvertising) throws(RadioHostError) {
        // Units of 0.625 ms from 0x000020 (7.8.53), at most the legacy 10.24 s.
        let micros = ad.intervalMicros ?? configuration.advertisingIntervalMicros
        let units = UInt32(clamping: min(max(micros / 625, 0x20), 0x4000))
        let scannable = scannableSet(e)
        let properties =
            scannable
            ? e.eventProperties | HCILESetExtendedAdvertisingParameters.scannableBit
                | HCILESetExtendedAdvertisingParameters.legacyBit
            : e.eventProperties
        // Legacy PDUs go on LE 1M's primary channels, with no secondary channel.
        var phys: (primary: UInt8, secondary: UInt8) =
            scannable ? (1, 1) : (e.primaryPHY ?? 1, e.secondaryPHY ?? 1)
        let parameters = { (primary: UInt8, secondary: UInt8) in
            HCILESetExtendedAdvertisingParameters(
                advertisingHandle: Self.advertisingSet, eventProperties: properties, intervalMin: units,
                intervalMax: units, ownAddressType: ad.addressType, primaryPHY: primary, secondaryPHY: secondary)
        }
        do throws(RadioHostError) {
            try command(parameters(phys.primary, phys.secondary))
        } catch {
            // LE Coded or LE 2M is an optional feature (Vol 6 Part B 4.6.10–12).
            guard phys != (1, 1) else { throw error }
            log("\(error); advertising on LE 1M instead of the captured PHYs")
            phys = (1, 1)
            try command(parameters(1, 1))
        }
        if ad.addressType == 1 {
            try command(
                HCILESetAdvertisingSetRandomAddress(advertisingHandle: Self.advertisingSet, randomAddress: ad.address))
        }
        for c in HCILESetExtendedAdvertisingData.commands(
            opcode: HCIOpcode.leSetExtendedAdvertisingData, advertisingHandle: Self.advertisingSet, data: e.data)
        {
            try command(c)
        }
        if scannable {
            for c in HCILESetExtendedAdvertisingData.commands(
                opcode: HCIOpcode.leSetExtendedScanResponseData, advertisingHandle: Self.advertisingSet,
                data: e.scanResponse)
            {
                try command(c)
            }
        }
        try command(
            HCILESetExtendedAdvertisingEnable(
                enable: 1,
                sets: [.init(advertisingHandle: Self.advertisingSet, duration: 0, maxExtendedAdvertisingEvents: 0)]))
        advertisingExtended = true
        let known = e.primaryPHY != nil && e.secondaryPHY != nil ? "" : " (the capture does not show every PHY)"
        let who = "advertising as \(ad.address) (\(ad.addressType == 1 ? "random" : "public"))"
        if scannable {
            log(
                "\(who) with the extended commands, connectable and scannable with the captured scan response: "
                    + "legacy ADV_IND PDUs on LE 1M (7.8.53 has no connectable and scannable extended PDUs), "
                    + "for captured connection #\(ad.connection)")
        } else {
            log(
                "\(who) with extended advertising, primary PHY \(Self.phyName(phys.primary)), secondary "
                    + "\(Self.phyName(phys.secondary))\(known), for captured connection #\(ad.connection)")
        }
    }

    /// Whether the captured scan response can be played: it answered scannable advertising (not
    /// a controller's report of one to connectable extended advertising, which no scanner gets
    /// over the air); a connectable and scannable set takes legacy PDUs only (7.8.53), so the
    /// captured data and scan response must each fit one (31 octets); and the controller must
    /// have LE Set Extended Scan Response Data. Says why not when there is a scan response.
    private func scannableSet(_ e: ExtendedAdvertising) -> Bool {
        guard !e.scanResponse.isEmpty else { return false }
        let limit = HCILESetAdvertisingData.maximumLength
        let why: String? =
            if !e.scanResponseScannable {
                "connectable extended advertising is not scannable (7.8.53)"
            } else if e.data.count > limit || e.scanResponse.count > limit {
                "connectable extended advertising is not scannable (7.8.53), and the captured data "
                    + "(\(e.data.count) octets) or scan response (\(e.scanResponse.count)) does not fit the legacy "
                    + "PDUs a connectable and scannable set takes (\(limit))"
            } else if let missing = missing([HCIOpcode.leSetExtendedScanResponseData]) {
                "the controller's Supported Commands lack \(missing)"
            } else {
                nil
            }
        if let why { log("the captured scan response is not played: \(why)") }
        return why == nil
    }

    /// Advertising off, with the commands it was turned on with (no answer awaited beyond the
    /// command's own bound; a failure here changes nothing the user is told).
    func stopAdvertising() {
        if advertisingExtended {
            _ = try? command(HCILESetExtendedAdvertisingEnable(enable: 0, sets: []))
        } else {
            _ = try? command(HCILESetAdvertisingEnable(enable: 0))
        }
    }

    static func phyName(_ phy: UInt8) -> String {
        switch phy {
        case 1: "LE 1M"
        case 2: "LE 2M"
        case 3: "LE Coded"
        default: "0x\(String(phy, radix: 16))"
        }
    }

    // MARK: role central

    /// Whether to scan and initiate with the extended commands for `next`: the capture used
    /// them, or its peripheral advertised in extended PDUs, and the controller has them.
    func usesExtendedScanning(_ next: CapturedCentralConnection) -> Bool {
        guard next.capturedExtended else { return false }
        if let missing = missingExtendedScanningCommand {
            log(
                "the capture scanned or connected with the extended commands; the controller's Supported Commands "
                    + "lack \(missing): scanning and connecting with the legacy ones")
            return false
        }
        return true
    }

    /// Scanning parameters and scanning on (7.8.64–65 on LE 1M, else 7.8.10–11).
    func startScanning(extended: Bool, interval: UInt16, window: UInt16, ownAddressType: UInt8)
        throws(RadioHostError)
    {
        if extended {
            try command(
                opcode: HCILESetExtendedScanParameters.opcode,
                HCILESetExtendedScanParameters.h4Encoded(
                    ownAddressType: ownAddressType, filterPolicy: 0, scanType: 1, interval: interval, window: window))
            try command(HCILESetExtendedScanEnable(enable: true, filterDuplicates: 0))
        } else {
            try command(
                HCILESetScanParameters(
                    scanType: 1, interval: interval, window: window, ownAddressType: ownAddressType, filterPolicy: 0))
            try command(HCILESetScanEnable(enable: true, filterDuplicates: 0))
        }
    }

    /// Scanning off, with the commands it was turned on with.
    func stopScanning(extended: Bool) throws(RadioHostError) {
        if extended {
            try command(HCILESetExtendedScanEnable(enable: false, filterDuplicates: 0))
        } else {
            try command(HCILESetScanEnable(enable: false, filterDuplicates: 0))
        }
    }

    /// LE Extended Create Connection on LE 1M (7.8.66), else LE Create Connection (7.8.12).
    func createConnection(
        extended: Bool, to found: (address: BDAddr, type: UInt8), scanInterval: UInt16, scanWindow: UInt16,
        ownAddressType: UInt8, connection: HCIConnectionParameters
    ) throws(RadioHostError) {
        if extended {
            try command(
                opcode: HCILEExtendedCreateConnection.opcode,
                HCILEExtendedCreateConnection.h4Encoded(
                    initiatorFilterPolicy: 0, ownAddressType: ownAddressType, peerAddressType: found.type,
                    peerAddress: found.address, scanInterval: scanInterval, scanWindow: scanWindow,
                    connection: connection))
        } else {
            try command(
                HCILECreateConnection(
                    scanInterval: scanInterval, scanWindow: scanWindow, initiatorFilterPolicy: 0,
                    peerAddressType: found.type, peerAddress: found.address, ownAddressType: ownAddressType,
                    connection: connection))
        }
    }
}

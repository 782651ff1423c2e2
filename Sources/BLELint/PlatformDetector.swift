import BLEBytes
import BLEPackets
import BLETimeline
import CaptureIO

/// Tells the engine which platform's host wrote a capture, from the signs its frames carry
/// (docs/lint-output.md, "Platform"). The first decisive sign wins; a weak sign (a file name, an
/// indication shaped like AOSP's Service Changed) holds only until a decisive one.
///
/// Weak signs: the file name `btsnoop_hci.log…`; the Android stack's controller bring-up after
/// Reset; this host indicating a handle range on handle 0x0003 (AOSP's Service Changed); LE
/// scan parameters that are exactly one of AOSP's scan-mode window/interval pairs.
///
/// Decisive signs:
/// - Android: a vendor command of AOSP's LE set (0xFD53 LE Get Vendor Capabilities, 0xFD54
///   multi-advertising, 0xFD55 RPA offload, 0xFD56 batch scan, 0xFD57 APCF, 0xFD58 advertiser
///   tracking, 0xFD59 energy info, 0xFD5A extended scan parameters, 0xFD5E quality report),
///   which only the Android stack sends; this host's GATT server listing the GAP service at
///   handle 0x0014 (the Android stack puts its own GATT service at 0x0001 and GAP at 0x0014,
///   before any app's service); a capture taken out of a bug report.
/// - Linux: a Linux monitor capture (btmon, btsnoop datalink 2001), BlueZ management commands.
/// - Apple: PacketLogger records that only Apple's tools write (power, kernel, configuration,
///   syslog and vendor records); a simulator API trace (the engine sees its first call).
///   A PacketLogger file by itself is no sign: BTstack writes the format too.
struct PlatformDetector {
    /// The rules were told the host stack (`HCIFact.hostStack`), or must never be.
    var hostStackTold = false
    /// A forced (or bug-report) platform's host stack is to be told at the first frame.
    var pending = false
    /// PacketLogger: watch the record types for Apple's.
    var watchesRecords = false
    /// Watch what this host's GATT server sends (until a decisive sign was read).
    var watchesGATTServer = true
    /// Weak ATT signs are not read from PacketLogger files (BTstack's GATT servers).
    var weakATTSigns = true
    var forced: Platform?
    /// The first commands after the first Reset, while they may still match an Android stack's
    /// controller bring-up (`initCommand`).
    var watchesInit = true
    var initOpcodes: [UInt16] = []
    var initFrame = 0
    var commandsSeen = 0
    /// Read LE (Extended) Set Scan Parameters while nothing decided the platform.
    var watchesScanParameters = true

    /// The Android stack's controller bring-up right after Reset: the legacy stack reads the
    /// buffer size and sets the host's (Read Buffer Size, Host Buffer Size); the newer one sets
    /// the event mask, LE host support and reads the local name. A weak sign, for old stacks
    /// that send none of the vendor commands (BlueZ, Apple's and BTstack's start otherwise).
    static let androidBringUps: [(opcodes: [UInt16], name: String)] = [
        (
            [HCIOpcode.reset, HCIOpcode.readBufferSize, HCIOpcode.hostBufferSize],
            "Reset, Read Buffer Size, Host Buffer Size"
        ),
        (
            [HCIOpcode.reset, HCIOpcode.setEventMask, HCIOpcode.writeLEHostSupport, HCIOpcode.readLocalName],
            "Reset, Set Event Mask, Write LE Host Support, Read Local Name"
        ),
    ]

    mutating func start(format: CaptureFormat, name: String?, _ engine: LintEngine) {
        if force(engine) { return }
        switch format {
        case .btsnoop(let datalink) where datalink == 2001:
            engine.notePlatform(.linux, evidence: "Linux monitor capture (btmon: btsnoop datalink 2001)")
            watchesGATTServer = false
            watchesInit = false
        case .packetLogger:
            watchesRecords = true
            weakATTSigns = false
        default: break
        }
        if let name, let why = Self.androidName(name) {
            engine.notePlatform(.android, evidence: why.evidence, weak: !why.decisive)
            if why.decisive {
                // The rules hear of it at the first frame, as of a forced platform.
                forced = .android
                pending = true
                hostStackTold = true
                watchesGATTServer = false
            }
        }
    }

    /// A platform set with `--platform`: the rules hear its host stack at the first frame and
    /// nothing is detected. Also for inputs whose format is not known up front (`watch`).
    @discardableResult
    mutating func force(_ engine: LintEngine) -> Bool {
        guard engine.facts.platform.overridden else { return false }
        forced = engine.platform
        pending = true
        hostStackTold = true
        watchesGATTServer = false
        watchesInit = false
        return true
    }

    /// Android's names for its HCI snoop logs and the bug report paths they are kept under.
    static func androidName(_ path: String) -> (evidence: String, decisive: Bool)? {
        for folder in ["FS/data/misc/bluetooth/logs/", "FS/data/log/bt/"] where path.contains(folder) {
            return ("taken from an Android bug report (\(folder))", true)
        }
        let file = path.split(separator: "/").last.map(String.init) ?? path
        let base = file.split(separator: "!").last.map(String.init) ?? file
        if base.hasPrefix("btsnooz") { return ("btsnooz log (Android bug report)", true) }
        // The btsnooz section of a bug report's dumpstate text (`archive!bugreport-….txt`).
        if path.contains("!"), base.hasPrefix("bugreport"), base.hasSuffix(".txt") {
            return ("btsnooz section of an Android bug report (\(base))", true)
        }
        if base.hasPrefix("btsnoop_hci.log") {
            return ("file name \(base) (Android's HCI snoop log)", false)
        }
        return nil
    }

    /// Tells the rules the forced platform's host stack, at the first frame.
    mutating func tellForced(_ engine: LintEngine, _ fact: (HCIFact.Kind) -> Void) {
        pending = false
        switch forced {
        case .android: fact(.hostStack(.android))
        case .linux: fact(.hostStack(.bluez))
        default: break
        }
    }

    /// A decisive sign of `platform`: the engine keeps it unless it knew better, and the rules
    /// learn the host stack once.
    mutating func decide(
        _ platform: Platform, _ evidence: String, weak: Bool = false, _ engine: LintEngine,
        _ fact: (HCIFact.Kind) -> Void
    ) {
        engine.notePlatform(platform, evidence: evidence, weak: weak)
        if !weak, engine.platform == platform { watchesGATTServer = false }
        // Rules that phrase a habit as the OS's (scan, discovery) hear only of decisive signs.
        guard !weak, !hostStackTold, engine.platform == platform else { return }
        switch platform {
        case .android:
            hostStackTold = true
            fact(.hostStack(.android))
        case .linux:
            hostStackTold = true
            fact(.hostStack(.bluez))
        default: break
        }
    }

    mutating func vendorCommand(_ opcode: UInt16, frame: Int, _ engine: LintEngine, _ fact: (HCIFact.Kind) -> Void) {
        guard let name = HCICommands.androidVendorName(for: opcode) else { return }
        decide(
            .android, "sent Android's vendor command \(name) (0x\(Describe.hex(opcode, 4))), frame \(frame)", engine,
            fact)
    }

    /// A command the host sent, while the bring-up after the first Reset is being read.
    mutating func initCommand(_ opcode: UInt16, frame: Int, _ engine: LintEngine, _ fact: (HCIFact.Kind) -> Void) {
        commandsSeen += 1
        if initOpcodes.isEmpty {
            if opcode == HCIOpcode.reset {
                initOpcodes = [opcode]
                initFrame = frame
            } else if commandsSeen > 64 {
                watchesInit = false
            }
            return
        }
        initOpcodes.append(opcode)
        for b in Self.androidBringUps where b.opcodes == initOpcodes {
            watchesInit = false
            if engine.platform == .unknown {
                decide(
                    .android, "the Android stack's controller bring-up after Reset (\(b.name)), frame \(initFrame)",
                    weak: true,
                    engine, fact)
            }
            return
        }
        if !Self.androidBringUps.contains(where: { $0.opcodes.starts(with: initOpcodes) }) { watchesInit = false }
    }

    /// LE (Extended) Set Scan Parameters: a window and interval that are exactly one of AOSP's
    /// scan-mode pairs (`ScanParameters.isExactAndroidScanMode`) are a weak sign, for old
    /// stacks that send no vendor command. Read only while the platform is unknown.
    mutating func scanParameters(
        _ c: HCICommandPacket, frame: Int, _ engine: LintEngine, _ fact: (HCIFact.Kind) -> Void
    ) {
        guard engine.platform == .unknown else {
            watchesScanParameters = false
            return
        }
        let window: UInt16
        let interval: UInt16
        if c.opcode == HCILESetScanParameters.opcode, let p = HCILESetScanParameters(parameters: c.parameters) {
            (window, interval) = (p.window, p.interval)
        } else if c.opcode == HCILESetExtendedScanParameters.opcode,
            let p = HCILESetExtendedScanParameters(parameters: c.parameters)
        {
            guard let first = p.entries.first else { return }
            (window, interval) = (first.window, first.interval)
        } else {
            return
        }
        let s = ScanParameters.make(
            extended: false, active: false, interval: interval, window: window, filterPolicy: 0, ownAddressType: 0,
            phys: 1, filterDuplicates: 0, parametersKnown: true)
        guard s.isExactAndroidScanMode, let mode = s.androidScanMode else { return }
        watchesScanParameters = false
        decide(
            .android,
            "scan parameters exactly Android's \(mode.apiName) (window \(Describe.duration(Int64(window) * 625)) / interval \(Describe.duration(Int64(interval) * 625))), frame \(frame)",
            weak: true, engine, fact)
    }

    /// PacketLogger record types only Apple's PacketLogger and bluetoothd write.
    mutating func record(_ r: CaptureRecord, _ engine: LintEngine, _ fact: (HCIFact.Kind) -> Void) {
        let what: String
        switch r.kind {
        case .power: what = "power state"
        case .kernel, .kernelDebug: what = "kernel log"
        case .syslog: what = "syslog"
        case .config: what = "configuration"
        case .unknown: what = "vendor"
        default: return
        }
        watchesRecords = false
        decide(.apple, "Apple PacketLogger \(what) record, frame \(r.frame)", engine, fact)
    }

    /// An ATT PDU this host sent: its GATT server's layout tells the Android stack.
    mutating func gattServerPDU(_ att: ByteView, frame: Int, _ engine: LintEngine, _ fact: (HCIFact.Kind) -> Void) {
        switch ATTPDU(att) {
        case .readByGroupTypeResponse(let g) where g.length == 6:
            // GAP (0x1800) at 0x0014: AOSP's GATT_GAP_START_HANDLE, after its own GATT service.
            // Length 6: each value is a 16-bit service UUID (Vol 3 Part F 3.4.4.10).
            let gap = BluetoothUUID(uuid16: 0x1800)
            if g.attributeData.contains(where: { $0.handle == 0x0014 && BluetoothUUID(littleEndian: $0.value) == gap })
            {
                decide(
                    .android,
                    "this host's GATT server has the GAP service at handle 0x0014, after its own GATT service (the Android stack's built-in layout), frame \(frame)",
                    engine, fact)
            }
        case .handleValueIndication(let i) where weakATTSigns && i.handle == 0x0003 && i.value.count == 4:
            guard engine.platform == .unknown else { return }
            decide(
                .android,
                "this host indicated a handle range on handle 0x0003, where the Android stack's own GATT service keeps Service Changed, frame \(frame)",
                weak: true, engine, fact)
        default: break
        }
    }
}

import BLEBytes
import BLEController
import BLEPackets
import CaptureIO
import TestSupport
import Testing

/// The controller core against the initialisation Bumble's host sent in the corpus: every
/// command answered as Bumble's own controller answered it (same event, same status, return
/// parameters of the same length), the Supported_Commands bitmap claiming exactly what is
/// answered, Unknown HCI Command for the rest.
@Suite struct ControllerInitTests {
    static let centrals = Fixtures.captures(in: "bumble").filter { $0.hasSuffix(".central.btsnoop") }

    @Test(arguments: centrals)
    func answersBumblesInitialisationAsItsControllerDid(_ path: String) throws {
        let host = try HostSide(path)
        let bench = try Bench(path)
        // The commands before the first connection that neither scan nor connect: the init
        // sequence (scan_before_init starts a scan before its Reset).
        let scanOrConnect: Set<UInt16> = [
            HCIOpcode.leCreateConnection, HCIOpcode.leSetScanEnable, HCIOpcode.leSetExtendedScanEnable,
            HCIOpcode.leSetScanParameters, HCIOpcode.leSetExtendedScanParameters, HCIOpcode.leExtendedCreateConnection,
        ]
        let initCommands = host.packets.prefix { $0.bytes.first == H4PacketType.command }.filter {
            $0.bytes.count >= 3 && !scanOrConnect.contains(UInt16($0.bytes[1]) | UInt16($0.bytes[2]) << 8)
        }
        #expect(initCommands.count >= 10)
        let captured = host.controllerPackets.compactMap { Event($0.bytes)?.commandComplete }
        for p in initCommands {
            let op = UInt16(p.bytes[1]) | UInt16(p.bytes[2]) << 8
            let answers = bench.send(p.bytes).compactMap(Event.init)
            #expect(answers.count == 1, "\(HCICommands.name(for: op)): \(answers.count) answers")
            guard let cc = answers.first?.commandComplete else {
                Issue.record("\(HCICommands.name(for: op)): no Command Complete")
                continue
            }
            #expect(cc.opcode == op)
            #expect(
                cc.returned.first == HCIError.success,
                "\(HCICommands.name(for: op)) status \(cc.returned.first ?? 0xFF)")
            let theirs = try #require(captured.first { $0.opcode == op }, "the capture answered \(op)")
            #expect(
                cc.returned.count == theirs.returned.count,
                "\(HCICommands.name(for: op)): \(cc.returned.hex) vs captured \(theirs.returned.hex)")
        }
        #expect(bench.controller.rejectedInput == 0)
    }

    /// Bumble's host asks only for what the bitmap claims; each claimed command must be one the
    /// controller answers without Unknown HCI Command, and every command of the init
    /// sequence must be claimed.
    @Test func theBitmapClaimsWhatIsAnswered() throws {
        let bench = try Bench(Fixtures.capture("bumble/hr_short_notification.central.btsnoop"))
        let answers = bench.command(HCIOpcode.readLocalSupportedCommands).compactMap { Event($0)?.commandComplete }
        let cc = try #require(answers.first)
        #expect(cc.returned.count == 65)
        let bitmap = Array(cc.returned.dropFirst())
        func claimed(_ octet: Int, _ bit: Int) -> Bool { bitmap[octet] & (1 << bit) != 0 }
        // Spec positions (Core 5.4 Vol 4 Part E 6.27) of commands every host sends.
        #expect(claimed(5, 7))  // Reset
        #expect(claimed(14, 3))  // Read Local Version Information
        #expect(claimed(25, 0))  // LE Set Event Mask
        #expect(claimed(25, 2))  // LE Read Local Supported Features
        #expect(claimed(41, 5))  // LE Read Buffer Size [v2]
        #expect(claimed(37, 7))  // LE Extended Create Connection
        // BR/EDR commands an LE-only controller does not have.
        #expect(!claimed(0, 0))  // Inquiry
        #expect(!claimed(7, 1))  // Read Local Name
        #expect(!claimed(14, 6))  // Read Local Extended Features
        // Unclaimed commands are refused as unknown.
        for op: UInt16 in [0x0401, 0x0C14, 0x1004, 0x2017, 0xFC01] {
            let answers = bench.command(op).compactMap { Event($0)?.commandComplete }
            let e = try #require(answers.first)
            #expect(e.opcode == op)
            #expect(e.returned == [HCIError.unknownHCICommand])
        }
    }

    @Test func malformedCommandsGetAnErrorNotACrash() throws {
        let bench = try Bench(Fixtures.capture("bumble/hr_short_notification.central.btsnoop"))
        // LE Set Event Mask with 3 of its 8 parameter octets.
        let short = bench.command(HCIOpcode.leSetEventMask, [1, 2, 3]).compactMap { Event($0)?.commandComplete }
        #expect(short.first?.returned == [HCIError.invalidHCICommandParameters])
        // A declared length the packet does not have, then a good command: the framer waits
        // for the rest, which is the next command's bytes; the stream recovers after it.
        let reset = HCISynthesis.command(HCIOpcode.reset)
        bench.send([H4PacketType.command, 0x03, 0x0C, 0x02])
        bench.send(reset)
        #expect(bench.out.isEmpty == false)
        // Junk packet types are dropped and counted; the next command is answered.
        let before = bench.controller.rejectedInput
        let answers = bench.send([0x00, 0xFF, 0x42] + reset).compactMap { Event($0)?.commandComplete }
        #expect(answers.map(\.opcode) == [HCIOpcode.reset])
        #expect(bench.controller.rejectedInput > before)
        // An ACL packet larger than the controller's buffers is skipped as it streams past.
        var big: [UInt8] = [H4PacketType.acl, 0x40, 0x00, 0xFF, 0x0F]
        big += [UInt8](repeating: 0xAB, count: 0x0FFF)
        let after = bench.send(big + reset).compactMap { Event($0)?.commandComplete }
        #expect(after.map(\.opcode) == [HCIOpcode.reset])
    }
}

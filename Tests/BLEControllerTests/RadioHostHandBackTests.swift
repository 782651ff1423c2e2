import BLEBytes
import BLEController
import BLEPackets
import Testing

/// A run that stops early (`--timeout`, Ctrl-C) hands the controller back tidied
/// (`RadioHost.handBack`): the central still connected is disconnected and the controller
/// reset, so nothing blecap set up outlives it. Seen first in the kernel check's virtual
/// machine (scripts/kernel/guest_radio.sh): over the HCI user channel the kernel takes the
/// adapter back without a command, and the central stayed connected to a peripheral nobody
/// played. Through `ScriptedController`, on its virtual clock.
@Suite struct RadioHostHandBackTests {
    static let disconnect = HCIDisconnect(handle: 0x0040, reason: HCIError.remoteUserTerminatedConnection).h4Encoded()

    /// A central that stays connected after its requests: the run's limit ends the run with
    /// the link up; handing back ends the link, then resets the controller.
    @Test func aLinkLeftUpIsDisconnectedThenTheControllerReset() throws {
        let c = ScriptedController()
        c.requests = Array(ScriptedController.capturedRequests.prefix(2))
        c.staysConnected = true
        let (end, host, _) = try c.run(timeoutMicros: 90_000_000)
        #expect(try end.get() == .timeout)
        #expect(!c.fromHost.contains(Self.disconnect))
        let sent = c.fromHost.count
        host.handBack()
        let after = Array(c.fromHost.dropFirst(sent))
        #expect(after.first == Self.disconnect)
        #expect(c.commands.last == HCIOpcode.reset)
        #expect(after.last == HCIParameterlessCommand(opcode: HCIOpcode.reset).h4Encoded())
    }

    /// A controller that never completes the disconnection: handing back waits its bound,
    /// then resets all the same.
    @Test func anUnansweredDisconnectionIsWaitedForOnlyUpToItsBound() throws {
        let c = ScriptedController()
        c.requests = Array(ScriptedController.capturedRequests.prefix(2))
        c.staysConnected = true
        let (end, host, _) = try c.run(timeoutMicros: 90_000_000)
        #expect(try end.get() == .timeout)
        c.answer = { op, _ in op == HCIOpcode.disconnect ? [HCISynthesis.commandStatus(op)] : nil }
        host.handBack(disconnectTimeoutMicros: 2_000_000)
        #expect(c.commands.suffix(2) == [HCIOpcode.disconnect, HCIOpcode.reset])
    }

    /// Advertising with no central yet (the run's limit came first): nothing to disconnect;
    /// the reset stops the advertising.
    @Test func advertisingWithoutACentralIsStoppedByTheReset() throws {
        let c = ScriptedController()
        c.answer = { op, _ in
            op == HCIOpcode.leSetAdvertisingEnable ? [HCISynthesis.commandComplete(op)] : nil
        }
        let (end, host, _) = try c.run(timeoutMicros: 10_000_000)
        #expect(try end.get() == .timeout)
        host.handBack()
        #expect(!c.commands.contains(HCIOpcode.disconnect))
        #expect(c.commands.last == HCIOpcode.reset)
    }
}

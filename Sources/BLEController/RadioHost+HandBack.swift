import BLEPackets

extension RadioHost {
    /// Leaves the controller as a host that is done with it should, for a run that stopped
    /// before its end (Ctrl-C, `--timeout`): each live link ended with HCI_Disconnect (Remote
    /// User Terminated Connection, Vol 4 Part E 7.1.6) and its Disconnection Complete awaited,
    /// then HCI_Reset (7.3.2), which stops advertising, scanning and a pending connection
    /// attempt. Without it the controller keeps all of them after blecap is gone: the HCI user
    /// channel hands the adapter back to the kernel without a command (Linux closes it as it
    /// is), so the remote central stays connected to a peripheral nobody plays. Bounded (the
    /// disconnections by `disconnectTimeoutMicros`, the reset by the command timeout); a
    /// second interrupt while it runs ends it at once. Best effort: errors are only logged.
    public func handBack(disconnectTimeoutMicros: Int64 = 2_000_000) {
        Self.interrupt = false
        let links = toVirtual.keys.sorted()
        for real in links {
            log("ending the link (handle 0x\(String(real, radix: 16))) before handing the controller back")
            send(HCIDisconnect(handle: real, reason: HCIError.remoteUserTerminatedConnection).h4Encoded())
        }
        let deadline = now + disconnectTimeoutMicros
        do {
            // Each Disconnection Complete ends its link here as the device's end would.
            while !toVirtual.isEmpty {
                if try pump(until: deadline) != nil { break }
            }
            if Self.interrupt { return }
            try command(HCIParameterlessCommand(opcode: HCIOpcode.reset))
        } catch {
            log("handing the controller back: \(error)")
        }
    }
}

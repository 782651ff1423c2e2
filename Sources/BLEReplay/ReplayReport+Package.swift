// Initialisers for the virtual HCI controller (BLEController), which builds the same report
// `blecap replay` prints from what a real host did on its connections.

extension ReplayedConnection {
    package init(number: Int, pdus: [ReplayedPDU]) {
        self.number = number
        self.pdus = ReplayedPDUs(pdus)
    }
}

extension ReplayedPDU {
    package init(offset: Int64, sentByHost: Bool, bytes: [UInt8]) {
        self.offset = offset
        self.sentByHost = sentByHost
        self.bytes = bytes
        capturedIndex = nil
    }
}

extension ReplayConnectionResult {
    package static func served(
        model: ReplayConnectionModel, replayed: ReplayedConnection, fidelity: ReplayFidelity
    ) -> Self {
        Self(model: model, replayed: replayed, fidelity: fidelity)
    }
}

extension ReplayReport {
    package static func served(
        session: CapturedSession, connections: [ReplayConnectionResult], faults: ReplayFaults, clock: ReplayClock
    ) -> Self {
        Self(session: session, connections: connections, faults: faults, clock: clock)
    }
}

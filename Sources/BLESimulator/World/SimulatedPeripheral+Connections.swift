import BLETimeline

extension SimulatedPeripheral {
    /// A connection to the peripheral completed or ended (`connectionObservers`).
    public struct ConnectionChange {
        public enum Event: Equatable {
            /// The LE Connection Complete: the central can send its first request.
            case connected
            /// The Disconnection Complete, with its reason (Core Vol 1 Part F) and who ended the
            /// link.
            case disconnected(reason: UInt8, side: DisconnectionSide)
        }

        /// The world the connection is in (where to schedule what follows from it).
        public let world: SimulatedWorld
        /// The connection's number in the world's trace (1, 2, …).
        public let connection: Int
        public let event: Event
    }

    func connectionChanged(_ change: ConnectionChange) {
        for observer in connectionObservers { observer(change) }
    }
}

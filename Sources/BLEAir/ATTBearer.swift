/// The rules of one ATT bearer that every front of the virtual air keeps the same way: the
/// ATT_MTU before and after an exchange and the transaction timeout. Each front still holds its
/// own bearer state (docs/architecture.md, "The virtual air", says how they differ).
public enum ATTBearer {
    /// ATT_MTU until an Exchange MTU completes: the LE default (Core Vol 3 Part F 3.2.8).
    @inlinable public static var defaultMTU: UInt16 { 23 }

    /// The ATT_MTU an Exchange MTU settles on: the smaller of the two Rx MTUs, but never below
    /// the default (Vol 3 Part F 3.4.2.2: a smaller value is not allowed, so it is not used).
    @inlinable public static func effectiveMTU(client: UInt16, server: UInt16) -> UInt16 {
        max(defaultMTU, min(client, server))
    }

    /// A transaction not completed within 30 seconds has timed out, and no more ATT PDUs may be
    /// sent on the bearer (Vol 3 Part F 3.3.3).
    @inlinable public static var transactionTimeoutMicros: Int64 { 30_000_000 }
}

import BLEPackets

extension PairingMethod {
    /// The association model two feature exchanges select (Core 5.4 Vol 3 Part H 2.3.5.1,
    /// Tables 2.6–2.8): OOB first, then Just Works when neither side wants MITM, then the IO
    /// capability mapping. Nil when an IO capability is reserved.
    public static func select(initiator i: SMPPairingFeatures, responder r: SMPPairingFeatures) -> PairingMethod? {
        let sc = i.authReq.secureConnections && r.authReq.secureConnections
        // Legacy needs OOB data on both sides; SC needs it from at least one (Table 2.6/2.7).
        if sc ? (i.oobDataFlag == 1 || r.oobDataFlag == 1) : (i.oobDataFlag == 1 && r.oobDataFlag == 1) {
            return .outOfBand
        }
        if !i.authReq.mitm && !r.authReq.mitm { return .justWorks }
        guard i.ioCapability <= 4, r.ioCapability <= 4 else { return nil }
        switch ioTable[Int(i.ioCapability) * 5 + Int(r.ioCapability)] {
        case .j: return .justWorks
        case .p: return .passkeyEntry
        case .x: return sc ? .numericComparison : .justWorks
        case .y: return sc ? .numericComparison : .passkeyEntry
        }
    }

    private enum Cell { case j, p, x, y }

    /// Table 2.8, initiator rows × responder columns, IO capabilities 0 DisplayOnly,
    /// 1 DisplayYesNo, 2 KeyboardOnly, 3 NoInputNoOutput, 4 KeyboardDisplay. `x`: Numeric
    /// Comparison with SC, Just Works in legacy; `y`: Numeric Comparison with SC, Passkey in
    /// legacy.
    private static let ioTable: [Cell] = [
        .j, .j, .p, .j, .p,
        .j, .x, .p, .j, .y,
        .p, .p, .p, .j, .p,
        .j, .j, .j, .j, .j,
        .p, .y, .p, .j, .y,
    ]
}

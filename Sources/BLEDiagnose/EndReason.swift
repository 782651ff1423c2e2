import BLEPackets

/// What a disconnection reason says about why the link ended (Core 5.4 Vol 1 Part F 1.3 and
/// 2.x for each code): a cause class, whose behaviour it reports, and the explanation. One row
/// per code the spec gives a meaning for a link's end; every other code ends as `ended_0xNN`
/// with its name from the project's one reason table (`HCIError.name`).
struct EndReason {
    var code: UInt8
    var cause: StaticString
    var party: StaticString
    var meaning: StaticString

    static let table: [EndReason] = [
        EndReason(
            code: 0x05, cause: "authentication_failure", party: "peer",
            meaning: "pairing or authentication failed (a wrong passkey, a failed confirm check)"),
        EndReason(
            code: 0x06, cause: "key_missing", party: "peer",
            meaning: "one side has no key for the bond the other side used: it lost or removed its pairing"),
        EndReason(
            code: 0x08, cause: "supervision_timeout", party: "link",
            meaning:
                "no packet arrived for the whole supervision timeout (out of range, interference, a peer that reset or stopped)"
        ),
        EndReason(
            code: 0x13, cause: "remote_user_terminated", party: "peer",
            meaning: "its host chose to disconnect"),
        EndReason(
            code: 0x14, cause: "remote_low_resources", party: "peer",
            meaning: "it ran out of resources"),
        EndReason(
            code: 0x15, cause: "remote_power_off", party: "peer",
            meaning: "it is powering off"),
        EndReason(
            code: 0x16, cause: "local_host_terminated", party: "host",
            meaning: "it asked its controller to disconnect"),
        EndReason(
            code: 0x1A, cause: "unsupported_remote_feature", party: "peer",
            meaning: "the peer refused a procedure it does not support"),
        EndReason(
            code: 0x22, cause: "ll_response_timeout", party: "link",
            meaning: "a link-layer procedure went unanswered for 40 s (the peer's controller never replied)"),
        EndReason(
            code: 0x23, cause: "ll_procedure_collision", party: "link",
            meaning: "both sides started conflicting link-layer procedures"),
        EndReason(
            code: 0x28, cause: "instant_passed", party: "link",
            meaning: "a parameter, channel map or PHY update arrived after its instant"),
        EndReason(
            code: 0x3B, cause: "unacceptable_connection_parameters", party: "peer",
            meaning: "the connection parameters asked for were refused"),
        EndReason(
            code: 0x3D, cause: "mic_failure", party: "link",
            meaning:
                "a packet failed its integrity check: the two sides do not hold the same key, or the packet was corrupted"
        ),
        EndReason(
            code: 0x3E, cause: "failed_to_be_established", party: "link",
            meaning:
                "the peer never answered the connection request's first packets (gone, out of range, or no longer advertising)"
        ),
    ]

    static func find(_ code: UInt8) -> EndReason? { table.first { $0.code == code } }
}

/// Codes the diagnosis names in text.
enum Codes {
    /// `0x08 Connection Timeout`.
    static func hci(_ code: UInt8) -> String {
        let name = HCIError.name(code).map { $0.description } ?? "Reserved"
        return "\(hex(code)) \(name)"
    }

    static func att(_ code: UInt8) -> String {
        let name = ATTErrorCode.name(code).map { $0.description } ?? "Reserved"
        return "\(hex(code)) \(name)"
    }

    static func smp(_ code: UInt8) -> String {
        let name = SMPPairingFailed.reasonName(code).map { $0.description } ?? "Reserved"
        return "\(hex(code)) \(name)"
    }

    static func hex(_ v: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "0x" + String(digits[Int(v >> 4)]) + String(digits[Int(v & 0xF)])
    }

    static func hex16(_ v: UInt16) -> String { hex(UInt8(v >> 8)) + hex(UInt8(v & 0xFF)).dropFirst(2) }

    /// Milliseconds from microseconds, as text ("720 ms", "31.2 s").
    static func duration(_ us: Int64) -> String {
        if us < 1000 { return "\(max(us, 0)) µs" }
        if us < 10_000_000 { return "\(us / 1000) ms" }
        let tenths = us / 100_000
        return "\(tenths / 10).\(tenths % 10) s"
    }
}

import CBluetooth

/// Company identifiers (Assigned Numbers 7.1), as carried by Manufacturer Specific Data and
/// LMP/LL version information, named through libbluetooth's `bt_compidtostr`.
///
/// libbluetooth returns a pointer to a string literal compiled into the library, so the
/// pointer stays valid for the life of the process and can go into `FieldValue.cString`
/// without copying. Its table is as current as the installed BlueZ (5.66 here: ids up to
/// 0x0958).
public enum CompanyIdentifiers {
    /// The company's name, or nil when libbluetooth does not know the id.
    ///
    /// libbluetooth answers "not assigned" for unknown ids and "internal use" for 0xFFFF (the
    /// id the SIG reserves for tests and internal use); the first becomes nil, the second is
    /// kept because it is the assigned meaning of 0xFFFF.
    public static func name(_ id: UInt16) -> UnsafePointer<CChar>? {
        guard let s = bt_compidtostr(Int32(id)) else { return nil }
        return isNotAssigned(s) ? nil : s
    }

    /// The name as a Swift string (allocates: for reports, not for decoding).
    public static func string(_ id: UInt16) -> String? { name(id).map { String(cString: $0) } }

    /// Compares with "not assigned" byte by byte, without building a String.
    private static func isNotAssigned(_ s: UnsafePointer<CChar>) -> Bool {
        let marker: StaticString = "not assigned"
        return marker.withUTF8Buffer { m in
            for i in 0..<m.count where UInt8(bitPattern: s[i]) != m[i] { return false }
            return s[m.count] == 0
        }
    }
}

/// A table of 16-bit assigned numbers and their names, sorted by number.
///
/// Two parallel arrays rather than an array of pairs: the bisection touches only the compact
/// key array, and the table is built once (a global `let`), so a lookup allocates nothing.
struct AssignedNumberTable: Sendable {
    let keys: [UInt16]
    let names: [StaticString]

    init(keys: [UInt16], names: [StaticString]) {
        precondition(keys.count == names.count, "assigned-number table: keys and names differ in count")
        self.keys = keys
        self.names = names
    }

    var count: Int { keys.count }

    /// The name assigned to `key`, or nil.
    func name(_ key: UInt16) -> StaticString? {
        var low = 0
        var high = keys.count
        while low < high {
            let mid = low + (high - low) / 2
            let k = keys[mid]
            if k == key { return names[mid] }
            if k < key { low = mid + 1 } else { high = mid }
        }
        return nil
    }

    /// Whether the keys are strictly increasing (tests check every table with it).
    var isSorted: Bool {
        var i = 1
        while i < keys.count {
            if keys[i - 1] >= keys[i] { return false }
            i += 1
        }
        return true
    }
}

import BLEBytes

/// The controller's Filter Accept List (Core 5.4 Vol 6 Part B 4.3.1) as the capture's HCI
/// commands built it: LE Add Device To / Remove Device From / Clear Filter Accept List (Vol 4
/// Part E 7.8.15–7.8.17), each applied only when its Command Complete says it succeeded, and
/// emptied by HCI Reset. A `connection.create` through the list (initiator filter policy 1)
/// carries the list as it stood (docs/timeline.md, `accept_list`), so a reader can tell which
/// peers the controller could connect to without guessing one.
///
/// Kept in the builder's `ScanFilterTables` and named by a `FilterAcceptListSnapshot` in the
/// event, so that events stay plain data.
public struct FilterAcceptList: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        /// 0x00 public, 0x01 random, 0xFF anonymous advertisers.
        public var addressType: UInt8
        public var address: BDAddr
        /// The LE Add Device To Filter Accept List command that put it there.
        public var frame: Int
    }

    public let entries: [Entry]
    /// The whole list is known: an HCI Reset or LE Clear Filter Accept List, confirmed, came
    /// since the capture began. False: devices added before the capture may be on it.
    public let complete: Bool
    /// The Reset or Clear the list is known from.
    public let clearedFrame: Int?
    /// Commands the list could not follow as sent: a remove of a device it does not hold, a
    /// command the controller rejected (its add or remove did not happen), one never answered.
    public let anomalies: Int
    public let firstAnomalyFrame: Int?

    public init(entries: [Entry], complete: Bool, clearedFrame: Int?, anomalies: Int, firstAnomalyFrame: Int?) {
        (self.entries, self.complete, self.clearedFrame, self.anomalies, self.firstAnomalyFrame) = (
            entries, complete, clearedFrame, anomalies, firstAnomalyFrame
        )
    }

    /// The entry for `address` (any address type: the list holds identity addresses, and a
    /// Connection Complete may report the same address as type 0x02/0x03).
    public func entry(for address: BDAddr) -> Entry? { entries.first { $0.address == address } }

    /// Whether the peer that connected through the list was on it, in words (never a guess:
    /// a peer missing from a list the capture only partly saw may have been added before it).
    public func membership(of peer: BDAddr?) -> String {
        guard let peer else { return "the Connection Complete names no peer" }
        if let e = entry(for: peer) { return "\(peer) was on it (added at frame \(e.frame))" }
        return complete
            ? "\(peer) was not on it as the capture built it"
            : "\(peer) is not among the devices the capture shows added (the list may hold devices added before the capture began)"
    }

    /// The list in words: its devices with the frames that added them.
    public var description: String {
        let devices =
            entries.isEmpty
            ? "no device"
            : entries.prefix(8).map { "\($0.address) (frame \($0.frame))" }.joined(separator: ", ")
                + (entries.count > 8 ? " and \(entries.count - 8) more" : "")
        return complete ? devices : devices + ", and possibly devices added before the capture began"
    }
}

/// Names one `FilterAcceptList` kept in a `ScanFilterTables`: what a `connection.create` carries.
public struct FilterAcceptListSnapshot: Sendable, Equatable {
    /// 1, 2, … in the order the lists were kept.
    public let version: UInt32
}

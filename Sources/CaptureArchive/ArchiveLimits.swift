/// How much an archive may make blecap decompress, and how deep it may nest. Archives are
/// untrusted input: a zip bomb expands a few kilobytes into gigabytes, and a nested one does it
/// again at each level. Every limit ends the read with `ArchiveError.refused`.
public struct ArchiveLimits: Sendable, Equatable {
    /// Largest single decompressed member (a capture, a nested archive or a bug report's text).
    public var maximumMemberBytes: Int64 = 1 << 31
    /// All bytes decompressed while opening one input, every level together (skipped members
    /// that had to be decompressed to be passed over included).
    public var maximumTotalBytes: Int64 = 1 << 33
    /// Decompressed bytes per compressed byte read, checked once `ratioFloorBytes` came out.
    /// Real HCI logs compress well below 50:1; deflate cannot exceed about 1032:1.
    public var maximumRatio: Int64 = 200
    public var ratioFloorBytes: Int64 = 1 << 20
    /// Archive levels: a capture in a zip is depth 1, a `.gz` in a `.tar.gz` in a zip is 3.
    public var maximumDepth = 4
    /// Entries of one archive (names included, captures or not).
    public var maximumEntries = 200_000
    /// A btsnooz section's base64 text (Android keeps the summary to a few hundred kilobytes).
    public var maximumSummaryBytes = 64 << 20

    public init() {}

    public static let standard = ArchiveLimits()
}

import CArchive
import Foundation

/// Builds archives for tests with libarchive's write API (the reader under test is libarchive
/// too, but through blecap's walker, limits and member choice; these files are what `zip`,
/// `tar czf`, `gzip` and `xz` write). Files go to a fresh temporary folder per `Scratch`.
public enum ArchiveWriter {
    public enum Kind: String, CaseIterable, Sendable {
        case gzip, xz, zip, tar, tarGzip

        public var fileExtension: String {
            switch self {
            case .gzip: "gz"
            case .xz: "xz"
            case .zip: "zip"
            case .tar: "tar"
            case .tarGzip: "tar.gz"
            }
        }
        /// A compressed single stream (no member names).
        public var isStream: Bool { self == .gzip || self == .xz }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Writes `entries` (name, bytes) as `kind` to `path`. gzip and xz hold exactly one entry.
    public static func write(_ kind: Kind, to path: String, entries: [(String, [UInt8])]) throws {
        guard let a = archive_write_new() else { throw Failure(description: "archive_write_new") }
        defer { archive_write_free(a) }
        switch kind {
        case .gzip:
            archive_write_add_filter_gzip(a)
            archive_write_set_format_raw(a)
        case .xz:
            archive_write_add_filter_xz(a)
            archive_write_set_format_raw(a)
        case .zip: archive_write_set_format_zip(a)
        case .tar: archive_write_set_format_pax_restricted(a)
        case .tarGzip:
            archive_write_add_filter_gzip(a)
            archive_write_set_format_pax_restricted(a)
        }
        guard archive_write_open_filename(a, path) == ARCHIVE_OK else { throw error(a) }
        for (name, bytes) in entries {
            guard let e = archive_entry_new() else { throw Failure(description: "archive_entry_new") }
            defer { archive_entry_free(e) }
            archive_entry_set_pathname(e, name)
            archive_entry_set_size(e, Int64(bytes.count))
            archive_entry_set_filetype(e, 0o100000)
            archive_entry_set_perm(e, 0o644)
            archive_entry_set_mtime(e, 1_700_000_000, 0)
            guard archive_write_header(a, e) == ARCHIVE_OK else { throw error(a) }
            let written = bytes.withUnsafeBytes { archive_write_data(a, $0.baseAddress, $0.count) }
            guard written == bytes.count else { throw error(a) }
        }
        guard archive_write_close(a) == ARCHIVE_OK else { throw error(a) }
    }

    static func error(_ a: OpaquePointer) -> Failure {
        Failure(description: archive_error_string(a).map { String(cString: $0) } ?? "libarchive error")
    }
}

/// A private temporary folder, removed when the value goes away.
public final class Scratch: @unchecked Sendable {
    public let path: String

    public init() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("blecap-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = url.path
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    public func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    public func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let p = file(name)
        guard FileManager.default.createFile(atPath: p, contents: Data(bytes)) else {
            throw ArchiveWriter.Failure(description: "cannot write \(p)")
        }
        return p
    }
}

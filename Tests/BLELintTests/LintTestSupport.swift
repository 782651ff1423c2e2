import BLELint
import CaptureIO
import Foundation
import TestSupport
import Testing

/// Lints a capture of the corpus (path relative to captures/) with the given configuration.
func lint(_ relative: String, _ configuration: LintConfiguration = LintConfiguration()) -> CaptureReport {
    let r = CaptureLinter.lint(path: Fixtures.capture(relative), configuration: configuration)
    #expect(r.error == nil, "\(relative): \(r.error ?? "")")
    return r
}

func bumble(_ name: String, _ configuration: LintConfiguration = LintConfiguration()) -> CaptureReport {
    lint("bumble/\(name).btsnoop", configuration)
}

extension CaptureReport {
    func of(_ slug: String) -> [Finding] { findings.filter { $0.slug == slug } }
    func notEvaluable(_ slug: String) -> NotEvaluated? { notEvaluated.first { $0.slug == slug && $0.whole } }
}

/// The first `frames` records of a btsnoop file of the corpus, as a temporary file: a capture
/// that ends earlier (real bytes, fewer of them).
func btsnoopPrefix(_ relative: String, frames: Int) throws -> String {
    var frame = 0
    return try btsnoopWithout(Fixtures.existing(relative)) { _, _ in
        frame += 1
        return frame > frames
    }
}

/// The first `frames` records of any capture of the corpus (btsnoop, pcap, PacketLogger), cut
/// at the next record's file offset, as a temporary file with the same extension.
func capturePrefix(_ relative: String, frames: Int) throws -> String {
    let source = try Fixtures.existing(relative)
    let reader = try CaptureFile.open(path: source)
    var cut: Int64? = nil
    while cut == nil, let r = reader.next() {
        if r.frame == frames + 1 { cut = r.fileOffset }
    }
    let bytes = try Fixtures.bytes(atPath: source)
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("blecap-lint-\(UUID().uuidString)-\(URL(fileURLWithPath: source).lastPathComponent)")
        .path
    try Data(bytes[..<Int(cut ?? Int64(bytes.count))]).write(to: URL(fileURLWithPath: path))
    return path
}

/// A btsnoop file of the corpus from frame `first` on, as a temporary file: a capture that
/// started later, mid-connection (real bytes, fewer of them).
func btsnoopSuffix(_ relative: String, from first: Int) throws -> String {
    var frame = 0
    return try btsnoopWithout(Fixtures.existing(relative)) { _, _ in
        frame += 1
        return frame < first
    }
}

/// Copies a btsnoop file without the records `drop` selects (real bytes, fewer of them), for
/// cases no capture shows on its own.
func btsnoopWithout(_ source: String, drop: (_ flags: UInt32, _ packet: [UInt8]) -> Bool) throws -> String {
    let data = try Fixtures.bytes(atPath: source)
    var out = Array(data[0..<16])
    var i = 16
    func u32be(_ o: Int) -> UInt32 { data[o..<o + 4].reduce(0) { $0 << 8 | UInt32($1) } }
    while i + 24 <= data.count {
        let incl = Int(u32be(i + 4))
        let flags = u32be(i + 8)
        guard i + 24 + incl <= data.count else { break }
        let packet = Array(data[(i + 24)..<(i + 24 + incl)])
        if !drop(flags, packet) { out += data[i..<(i + 24 + incl)] }
        i += 24 + incl
    }
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("blecap-lint-\(UUID().uuidString).btsnoop")
        .path
    try Data(out).write(to: URL(fileURLWithPath: path))
    return path
}

import BLELint
import Foundation
import TestSupport
import Testing

/// Lints a shared capture with the given configuration.
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
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("blecap-lint-\(UUID().uuidString).btsnoop").path
    try Data(out).write(to: URL(fileURLWithPath: path))
    return path
}

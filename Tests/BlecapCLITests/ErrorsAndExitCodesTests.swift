import Foundation
import TestSupport
import Testing

/// Exit codes and messages for inputs blecap cannot (fully) read.
@Suite struct ErrorsAndExitCodesTests {
    @Test func missingFileIsExit4() throws {
        let run = try CLIRunner.run(["packets", "/nonexistent/capture.btsnoop"])
        #expect(run.status == 4)
        #expect(run.stderr.contains("cannot open"))
        #expect(run.stdout.isEmpty)
    }

    @Test func unknownFormatIsExit4EvenWithABtsnoopishName() throws {
        // A raw H4 stream (no container) under the name Android gives its snoop log.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("blecap-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let named = dir.appendingPathComponent("btsnoop_hci.log")
        try Data(Fixtures.bytes("synthetic/unknown-raw-h4-stream.bin")).write(to: named)
        let run = try CLIRunner.run(["info", named.path])
        #expect(run.status == 4)
        #expect(run.stderr.contains("unknown capture format"))
    }

    @Test func linkLayerCapturesAreReadAndOtherLinkTypesRefusedClearly() throws {
        let run = try CLIRunner.run([
            "packets", Fixtures.capture("public/pcap-lell256_whad-pairing-gatt-conn-update.pcap"),
        ])
        #expect(run.status == 0)
        #expect(run.stdout.contains("LL_CTRL LL_FEATURE_REQ"))
        // A pcap of Ethernet frames: no Bluetooth at all.
        var header: [UInt8] = [0xD4, 0xC3, 0xB2, 0xA1, 2, 0, 4, 0]
        header += [UInt8](repeating: 0, count: 8) + [0xFF, 0xFF, 0, 0, 1, 0, 0, 0]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("blecap-eth-\(UUID().uuidString).pcap")
        try Data(header).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let refused = try CLIRunner.run(["packets", file.path])
        #expect(refused.status == 4)
        #expect(refused.stderr.contains("pcap link type 1 (unknown) carries no Bluetooth traffic blecap reads"))
    }

    @Test func usageErrorsAreExit2() throws {
        let run = try CLIRunner.run([
            "packets", "--format", "xml", Fixtures.capture("bumble/clean_heart_rate.central.btsnoop"),
        ])
        #expect(run.status == 2)
        #expect(run.stderr.contains("xml"))
    }

    @Test func damagedCaptureDecodesItsPrefixAndExits3() throws {
        let original = try Data(
            contentsOf: URL(fileURLWithPath: Fixtures.capture("bumble/clean_heart_rate.central.btsnoop")))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("blecap-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // Cut 3 bytes from the last record (frame 123): frames 1–122 are intact.
        let truncated = dir.appendingPathComponent("truncated.btsnoop")
        try original.prefix(original.count - 3).write(to: truncated)
        let run = try CLIRunner.run(["packets", "--format", "jsonl", truncated.path])
        #expect(run.status == 3)
        #expect(try CLIRunner.jsonLines(run.stdout).count == 122)
        #expect(run.stderr.contains("frame 123"))
        #expect(run.stderr.contains("byte offset"))
        // Garbage after valid data: everything decoded, then damage at the garbage.
        let garbage = dir.appendingPathComponent("garbage.btsnoop")
        try (original + Data(repeating: 0xFF, count: 30)).write(to: garbage)
        let run2 = try CLIRunner.run(["info", garbage.path])
        #expect(run2.status == 3)
        #expect(run2.stdout.contains("frames:        123"))
        #expect(run2.stderr.contains("byte offset \(original.count)"))
    }
}

import BLEBytes
import CaptureIO
import Foundation
import TestSupport
import Testing

@testable import CaptureArchive

/// Every corpus capture, gzip'd, xz'd, zipped and tarred (plain and gzip'd), reads exactly like
/// the capture itself: the same format, records (every field, payload bytes and the offsets
/// into the decompressed file) and damage, or the same error.
@Suite struct ArchiveRoundTripTests {
    static let corpus =
        Fixtures.captures(in: "bumble") + Fixtures.captures(in: "formats") + Fixtures.captures(in: "public")
        + Fixtures.captures(in: "synthetic")

    @Test(arguments: corpus, ArchiveWriter.Kind.allCases)
    func decodesLikeTheBareCapture(path: String, kind: ArchiveWriter.Kind) throws {
        let scratch = try Scratch()
        let bytes = try Fixtures.bytes(atPath: path)
        let archive = scratch.file("capture.\(kind.fileExtension)")
        try ArchiveWriter.write(kind, to: archive, entries: [(fileName(path), bytes)])

        let bare: Result<ReadResult, CaptureError> = Result { () throws(CaptureError) in
            ReadResult(try CaptureFile.open(path: path))
        }
        let member = kind.isStream ? nil : fileName(path)
        switch bare {
        case .success(let expected):
            let bundle = try CaptureBundle.open(path: archive)
            #expect(bundle.members.map(\.name) == [member])
            #expect(bundle.members.map(\.displayName) == [member.map { "\(archive)!\($0)" } ?? archive])
            #expect(bundle.damage == nil)
            let got = try readOnly(bundle)
            #expect(got.format == expected.format)
            #expect(got.damage == expected.damage)
            #expect(got.records.count == expected.records.count)
            #expect(got.records == expected.records, "\(Fixtures.relative(path)) in \(kind)")
        case .failure(.unknownFormat):
            // Not a capture: inside an archive it is a member that holds none.
            #expect {
                _ = try CaptureBundle.open(path: archive)
            } throws: { e in
                guard case .noCapture(_, let names, _) = e as? ArchiveError else { return false }
                return names == (member.map { [$0] } ?? [])
            }
        case .failure(let error):
            // Recognised and refused (link-layer pcaps): the same error from the member.
            let bundle = try CaptureBundle.open(path: archive)
            #expect(throws: error) { _ = try bundle.members[0].makeReader() }
        }
    }

    /// A plain capture stays on CaptureIO's path: the member opens the file by its path.
    @Test func plainCaptureIsReadInPlace() throws {
        let path = Fixtures.capture("bumble/clean_heart_rate.central.btsnoop")
        let bundle = try CaptureBundle.open(path: path)
        #expect(bundle.container == nil)
        #expect(bundle.members.count == 1)
        guard case .path(let p) = bundle.members[0].storage else {
            Issue.record("a plain capture was copied")
            return
        }
        #expect(p == path)
    }

    /// A zip with several captures gives each (sorted by first record time), and `member`
    /// picks one by archive path or file name.
    @Test func severalCapturesAndMemberChoice() throws {
        let scratch = try Scratch()
        let a = try Fixtures.bytes("bumble/clean_heart_rate.central.btsnoop")
        let b = try Fixtures.bytes("bumble/reconnect_storm.central.btsnoop")
        let zip = scratch.file("two.zip")
        try ArchiveWriter.write(
            .zip, to: zip, entries: [("logs/b.btsnoop", b), ("readme.txt", Array("hi".utf8)), ("logs/a.btsnoop", a)])
        let all = try CaptureBundle.open(path: zip)
        #expect(Set(all.members.compactMap(\.name)) == ["logs/a.btsnoop", "logs/b.btsnoop"])
        let times = all.members.map { ReadResult(try! $0.makeReader()).records.first?.timestamp ?? 0 }
        #expect(times == times.sorted())

        let one = try CaptureBundle.open(path: zip, member: "a.btsnoop")
        #expect(one.members.map(\.name) == ["logs/a.btsnoop"])
        #expect(
            try readOnly(one).records.count
                == ReadResult(try CaptureFile.open(path: Fixtures.capture("bumble/clean_heart_rate.central.btsnoop")))
                .records.count)
        #expect(throws: ArchiveError.noSuchMember("c.btsnoop", available: ["logs/b.btsnoop", "logs/a.btsnoop"])) {
            _ = try CaptureBundle.open(path: zip, member: "c.btsnoop")
        }
    }

    /// Captures inside an archive inside an archive are named by both levels.
    @Test func nestedArchiveNamesBothLevels() throws {
        let scratch = try Scratch()
        let capture = try Fixtures.bytes("formats/clean_heart_rate.central.h4.pcap")
        let inner = scratch.file("inner.tar.gz")
        try ArchiveWriter.write(.tarGzip, to: inner, entries: [("x/hci.pcap", capture)])
        let outer = scratch.file("outer.zip")
        try ArchiveWriter.write(.zip, to: outer, entries: [("inner.tar.gz", try Fixtures.bytes(atPath: inner))])
        let bundle = try CaptureBundle.open(path: outer)
        #expect(bundle.members.map(\.name) == ["inner.tar.gz!x/hci.pcap"])
        #expect(bundle.members.map(\.displayName) == ["\(outer)!inner.tar.gz!x/hci.pcap"])
        let expected = ReadResult(
            try CaptureFile.open(path: Fixtures.capture("formats/clean_heart_rate.central.h4.pcap")))
        #expect(try readOnly(bundle).records == expected.records)
    }

    /// An archive without captures lists what it holds.
    @Test func archiveWithoutCaptureListsItsContents() throws {
        let scratch = try Scratch()
        let zip = scratch.file("notes.zip")
        try ArchiveWriter.write(
            .zip, to: zip, entries: [("a.txt", Array("x".utf8)), ("b/c.png", [0x89, 0x50, 0x4E, 0x47])])
        #expect(throws: ArchiveError.noCapture(kind: "\(zip) (zip)", contents: ["a.txt", "b/c.png"], total: 2)) {
            _ = try CaptureBundle.open(path: zip)
        }
        let message = ArchiveError.noCapture(kind: "notes.zip (zip)", contents: ["a.txt", "b/c.png"], total: 2)
            .description
        #expect(message == "notes.zip (zip) holds no capture blecap reads; it contains: a.txt, b/c.png")
    }
}

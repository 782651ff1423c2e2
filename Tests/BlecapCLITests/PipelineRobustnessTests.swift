import BLEBytes
import BLEPackets
import CaptureIO
import Foundation
import TestSupport
import Testing

/// Every capture in the corpus, damaged on purpose, through the whole pipeline (reader → FrameDecoder
/// → describe → text/json/jsonl writers). The reader-level truncation tests in CaptureIOTests
/// check exact damage messages on a few files; these check that *nothing downstream* breaks on
/// any real capture: no trap, no hang, the frames before the damage decode and render exactly
/// as in the intact file, and the damage is reported where it is.
///
/// All mutations come from fixed seeds, so a failure names a reproducible variant.
@Suite("Pipeline robustness on damaged real captures")
struct PipelineRobustnessTests {
    // MARK: the corpus

    static let folders = ["bumble", "formats", "public", "synthetic"]

    /// What opening a capture blecap cannot read must throw; nil for HCI and link-layer captures.
    static func expectedRefusal(_ name: String) -> CaptureError? {
        name.hasPrefix("unknown-") ? .unknownFormat : nil
    }

    static let allCaptures: [String] = folders.flatMap { Fixtures.captures(in: $0) }

    /// Paths relative to captures/, so test arguments read well.
    static let readable: [String] = allCaptures.compactMap { path in
        let name = URL(fileURLWithPath: path).lastPathComponent
        guard expectedRefusal(name) == nil else { return nil }
        return Fixtures.relative(path)
    }

    /// Files above this size are mutated through a prefix (cut at a record boundary) so the
    /// suite stays fast; the full files are still truncated in `heavyCapturesTruncated`.
    static let heavySize = 200_000
    static let prefixSize = 48_000

    static let heavy: [String] = readable.filter {
        ((try? FileManager.default.attributesOfItem(atPath: Fixtures.capture($0))[.size] as? Int) ?? 0) > heavySize
    }

    @Test func theCorpusIsThere() {
        // Guards against a silently short argument list (files missing from captures/).
        #expect(Self.readable.count >= 44, "\(Self.readable.count) readable captures")
        #expect(Self.allCaptures.count - Self.readable.count >= 1)
        #expect(Self.heavy.count >= 4)
    }

    @Test func unknownCapturesRefuseToOpen() throws {
        var refused = 0
        for path in Self.allCaptures {
            let name = URL(fileURLWithPath: path).lastPathComponent
            guard let expected = Self.expectedRefusal(name) else { continue }
            #expect(throws: expected, "\(name)") { _ = try CaptureFile.open(path: path) }
            // Through a pipe too: the refusal does not depend on being able to seek.
            let bytes = try Self.fileBytes(path)
            let r = Pipeline.run(
                bytes, via: .pipe(chunk: 509), reference: [], renderFrom: 1, frameLimit: 0, parseJSON: false)
            #expect(r.openError == expected, "\(name) via pipe")
            refused += 1
        }
        #expect(refused >= 1)
    }

    // MARK: subjects

    /// One capture prepared for mutation: its bytes (a prefix for heavy files), its intact
    /// records, and the jsonl of every frame of the intact decode.
    final class Subject: @unchecked Sendable {
        let name: String
        let bytes: [UInt8]
        let records: [ReferenceRecord]
        let jsonl: [Int: [UInt8]]
        let format: CaptureFormat
        /// Where the first record starts (after the container's file header).
        let firstRecordOffset: Int
        let seed: UInt64

        init(_ relative: String) throws {
            name = relative
            var bytes = try PipelineRobustnessTests.fileBytes(Fixtures.capture(relative))
            var (format, records, damage) = try PipelineRobustnessTests.plainRead(bytes)
            #expect(damage == nil, "\(relative): intact capture reports \(String(describing: damage))")
            if bytes.count > PipelineRobustnessTests.heavySize {
                let keep = records.prefix { $0.end <= Int64(PipelineRobustnessTests.prefixSize) }
                bytes = Array(bytes[..<Int(keep.last!.end)])
                (format, records, damage) = try PipelineRobustnessTests.plainRead(bytes)
                #expect(damage == nil && records.count == keep.count)
            }
            self.bytes = bytes
            self.records = records
            self.format = format
            firstRecordOffset = Int(records.first?.fileOffset ?? Int64(bytes.count))
            // The seed depends on the name only: every run mutates a file the same way.
            seed = relative.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
            let r = Pipeline.run(
                bytes, via: .file, reference: records, renderFrom: 1, frameLimit: records.count + 8, parseJSON: true)
            #expect(r.openError == nil && r.damage == nil && r.firstDivergence == nil && r.frames == records.count)
            #expect(r.problems.isEmpty, "\(relative): \(r.problems.prefix(5))")
            jsonl = r.jsonl
        }

        var isPcapng: Bool { if case .pcapng = format { true } else { false } }

        /// Records that end at or before `offset`.
        func intactCount(before offset: Int) -> Int {
            var n = 0
            while n < records.count && records[n].end <= Int64(offset) { n += 1 }
            return n
        }

        /// Bytes a reader may look at while opening (header, and PacketLogger's 64-byte sniff).
        var openRegion: Int { max(firstRecordOffset, 64) }
    }

    static let subjects = SubjectCache()

    final class SubjectCache: @unchecked Sendable {
        private let lock = NSLock()
        private var cache: [String: Subject] = [:]

        func get(_ relative: String) throws -> Subject {
            lock.lock()
            defer { lock.unlock() }
            if let s = cache[relative] { return s }
            let s = try Subject(relative)
            cache[relative] = s
            return s
        }
    }

    static func fileBytes(_ path: String) throws -> [UInt8] {
        try Fixtures.bytes(atPath: path)
    }

    /// Reader only: the records of `bytes`, copied.
    static func plainRead(_ bytes: [UInt8]) throws -> (CaptureFormat, [ReferenceRecord], CaptureDamage?) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("blecap-plain-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(bytes).write(to: url)
        let reader = try CaptureFile.open(path: url.path)
        var records: [ReferenceRecord] = []
        while let r = reader.next() { records.append(ReferenceRecord(r)) }
        return (reader.format, records, reader.damage)
    }

    // MARK: (a) truncation

    /// What cutting `subject` at `cut` must give, checked against a pipeline run. Records that
    /// end by the cut are delivered exactly as in the intact capture; a cut inside a record is
    /// damage at that record's offset; a cut on a boundary is a clean end.
    static func checkTruncation(_ s: Subject, cut: Int, via input: InputPath, window: Int = 3) {
        let kept = s.intactCount(before: cut)
        let renderFrom = max(1, kept - window)
        let r = Pipeline.run(
            Array(s.bytes[..<cut]), via: input, reference: s.records, renderFrom: renderFrom,
            frameLimit: s.records.count + 8, parseJSON: true)
        let label = "\(s.name) cut at \(cut) via \(input)"
        #expect(r.problems.isEmpty, "\(label): \(r.problems.prefix(5))")
        #expect(!r.hitFrameLimit, "\(label): reader does not end")
        if let e = r.openError {
            // Only a cut inside what opening reads may make the file unrecognisable.
            #expect(cut < s.openRegion, "\(label): open failed: \(e)")
            return
        }
        #expect(r.frames == kept, "\(label): \(r.frames) frames, \(kept) end before the cut")
        #expect(r.firstDivergence == nil, "\(label): frame \(r.firstDivergence ?? 0) differs from the intact capture")
        for f in renderFrom...max(renderFrom, kept) where f <= kept {
            #expect(r.jsonl[f] == s.jsonl[f], "\(label): frame \(f) decodes differently")
        }
        let previousEnd = kept > 0 ? s.records[kept - 1].end : Int64(s.firstRecordOffset)
        if kept < s.records.count, Int64(cut) > s.records[kept].fileOffset {
            // Inside record kept+1.
            let cutRecord = s.records[kept]
            guard let d = r.damage else {
                Issue.record("\(label): no damage reported inside frame \(cutRecord.frame)")
                return
            }
            #expect(d.frame == cutRecord.frame, "\(label): \(d)")
            if s.isPcapng {
                // libpcap reports where it stopped reading blocks: after the last packet.
                #expect(d.offset >= previousEnd && d.offset <= cutRecord.fileOffset, "\(label): \(d)")
            } else {
                #expect(d.offset == cutRecord.fileOffset, "\(label): \(d)")
            }
        } else if Int64(cut) == previousEnd || !s.isPcapng {
            #expect(
                r.damage == nil,
                "\(label): a cut on a record boundary is a clean end, got \(String(describing: r.damage))")
        } else if let d = r.damage {
            // pcapng cut inside a non-packet block (interface statistics …) between packets.
            #expect(d.frame == kept + 1 && d.offset >= previousEnd && d.offset <= Int64(cut), "\(label): \(d)")
        }
    }

    /// Record boundaries to cut at: all of them while re-reading every prefix stays within
    /// `budget` frames, otherwise the first and last 24 and an even spread between.
    static func boundaryCuts(_ s: Subject, budget: Int = 30_000) -> [Int] {
        let n = s.records.count
        let all = s.records.map { Int($0.fileOffset) } + [s.bytes.count]
        if n * (n + 1) / 2 <= budget { return all }
        let spread = max(budget * 2 / n, 1)
        let stride = max(n / spread, 1)
        var picked = Set<Int>()
        for i in 0...n where i < 24 || i > n - 24 || i % stride == 0 { picked.insert(i) }
        return picked.sorted().map { all[$0] }
    }

    @Test(arguments: readable)
    func truncatedAtEveryRecordBoundary(_ relative: String) throws {
        let s = try Self.subjects.get(relative)
        let cuts = Self.boundaryCuts(s)
        #expect(cuts.count >= min(s.records.count + 1, 60))
        for (i, cut) in cuts.enumerated() {
            // Every 16th through a pipe (the last one too: a stream that ends on a boundary).
            let input: InputPath = i % 16 == 5 || i == cuts.count - 1 ? .pipe(chunk: 1 + i % 300) : .file
            Self.checkTruncation(s, cut: cut, via: input)
        }
    }

    @Test(arguments: readable)
    func truncatedAtRandomOffsets(_ relative: String) throws {
        let s = try Self.subjects.get(relative)
        var rng = SplitMix64(seed: s.seed ^ 0xA)
        var cuts: [Int] = []
        // Inside the header and the first bytes (detection), then anywhere.
        for _ in 0..<4 { cuts.append(Int.random(in: 1...min(s.openRegion, s.bytes.count), using: &rng)) }
        for _ in 0..<20 { cuts.append(Int.random(in: 1..<s.bytes.count, using: &rng)) }
        // One byte into the last record and one byte short of its end.
        if let last = s.records.last {
            cuts.append(Int(last.fileOffset) + 1)
            cuts.append(Int(last.end) - 1)
        }
        for (i, cut) in cuts.enumerated() {
            Self.checkTruncation(s, cut: cut, via: i % 5 == 2 ? .pipe(chunk: 1 + i * 37) : .file)
        }
    }

    // MARK: (b) byte flips

    /// Frames rendered from just before a mutation on (later ones are read and decoded only).
    static let renderWindow = 160

    @Test(arguments: readable)
    func randomByteFlips(_ relative: String) throws {
        let s = try Self.subjects.get(relative)
        var rng = SplitMix64(seed: s.seed ^ 0xB)
        for variant in 0..<12 {
            var bytes = s.bytes
            var positions: [Int] = []
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                // Mostly in the records; one variant in eight may hit the header.
                let lower = variant % 8 == 7 ? 0 : min(s.firstRecordOffset, bytes.count - 1)
                let p = Int.random(in: lower..<bytes.count, using: &rng)
                bytes[p] ^= UInt8.random(in: 1...255, using: &rng)
                positions.append(p)
            }
            let first = positions.min()!
            let label = "\(s.name) flips at \(positions.sorted()) (variant \(variant))"
            let untouched = s.intactCount(before: first)
            let r = Pipeline.run(
                bytes, via: variant % 4 == 1 ? .pipe(chunk: 97 + variant) : .file, reference: s.records,
                renderFrom: max(1, untouched - 2), renderCount: Self.renderWindow, frameLimit: bytes.count / 12 + 8,
                parseJSON: variant % 3 == 0)
            Self.checkMutated(s, r, label: label, untouched: untouched, firstMutation: first)
        }
    }

    /// What any mutation must give: the pipeline ends, renders cleanly, and — when the mutation
    /// is past the file header — delivers the untouched records as they were.
    static func checkMutated(_ s: Subject, _ r: PipelineResult, label: String, untouched: Int, firstMutation: Int) {
        #expect(!r.hitFrameLimit, "\(label): reader does not end")
        #expect(r.problems.isEmpty, "\(label): \(r.problems.prefix(5))")
        if let e = r.openError {
            #expect(firstMutation < s.openRegion, "\(label): open failed: \(e)")
            return
        }
        if let d = r.damage {
            #expect(d.frame == r.frames + 1, "\(label): \(d) after \(r.frames) frames")
            #expect(d.offset >= 0 && d.offset <= Int64(s.bytes.count), "\(label): \(d)")
        }
        guard firstMutation >= s.firstRecordOffset else { return }
        #expect(r.frames >= untouched, "\(label): \(r.frames) frames, \(untouched) untouched")
        if let d = r.damage {
            let previousEnd = untouched > 0 ? s.records[untouched - 1].end : Int64(s.firstRecordOffset)
            #expect(d.offset >= previousEnd, "\(label): \(d) before the first mutation")
        }
        if let f = r.firstDivergence {
            #expect(f > untouched, "\(label): frame \(f) differs but is before the mutation")
        }
        for f in max(1, untouched - 2)...max(1, untouched) where f <= untouched {
            #expect(r.jsonl[f] == s.jsonl[f], "\(label): frame \(f) decodes differently")
        }
    }

    // MARK: (c) huge length fields

    /// Where a record's own length field sits in its header, per container.
    static func containerLengthOffset(_ format: CaptureFormat) -> Int {
        switch format {
        case .btsnoop: 4  // included length
        case .packetLogger: 0  // record length
        case .pcap: 8  // caplen
        case .pcapng: 4  // block total length
        }
    }

    /// Values that are impossible (above 1 MiB and above libpcap's 256 KiB) in either byte order.
    static let hugeLengths: [[UInt8]] = [
        [0xFF, 0xFF, 0xFF, 0xFF], [0x7F, 0xFF, 0xFF, 0xFF], [0xFF, 0xFF, 0xFF, 0x7F],
        [0x00, 0x10, 0x00, 0x10], [0x80, 0x00, 0x00, 0x80],
    ]

    /// Where the record's payload (the HCI packet without its type byte) sits in the file.
    static func payloadOffset(_ s: Subject, _ record: ReferenceRecord) -> Int? {
        let start = Int(record.fileOffset)
        let end = Int(record.end)
        guard !record.payload.isEmpty, end <= s.bytes.count else { return nil }
        let tail = end - record.payload.count
        if s.bytes[tail..<end].elementsEqual(record.payload) { return tail }
        // pcapng: padding, options and the trailing length follow the data.
        var i = start + 8
        while i + record.payload.count <= end {
            if s.bytes[i..<(i + record.payload.count)].elementsEqual(record.payload) { return i }
            i += 1
        }
        return nil
    }

    /// Offsets and widths of length fields inside an HCI packet.
    static func innerLengthFields(_ record: ReferenceRecord) -> [(offset: Int, width: Int)] {
        let p = record.payload
        switch record.kind {
        case .hciCommand where p.count >= 3: return [(2, 1)]  // Parameter_Total_Length
        case .hciEvent where p.count >= 2: return [(1, 1)]  // Parameter_Total_Length
        case .aclData where p.count >= 4:
            var fields = [(2, 2)]  // Data_Total_Length
            if p.count >= 6 && p[1] & 0x30 != 0x10 { fields.append((4, 2)) }  // L2CAP length (start fragment)
            if p.count >= 12, p[1] & 0x30 != 0x10, p[6] == 0x05 || p[6] == 0x01, p[7] == 0 {
                fields.append((10, 2))  // signalling command length
            }
            return fields
        default: return []
        }
    }

    @Test(arguments: readable)
    func hugeLengthFields(_ relative: String) throws {
        let s = try Self.subjects.get(relative)
        guard !s.records.isEmpty else { return }
        var rng = SplitMix64(seed: s.seed ^ 0xC)
        var containerVariants = 0
        var innerVariants = 0
        for variant in 0..<16 {
            let index = Int.random(in: 0..<s.records.count, using: &rng)
            let record = s.records[index]
            var bytes = s.bytes
            let inner = Self.innerLengthFields(record)
            let label = "\(s.name) frame \(record.frame) variant \(variant)"
            let input: InputPath = variant % 4 == 3 ? .pipe(chunk: 4096) : .file
            if variant % 2 == 0 || inner.isEmpty {
                // The container's length: damage at this record, everything before intact.
                let at = Int(record.fileOffset) + Self.containerLengthOffset(s.format)
                let huge = Self.hugeLengths[Int.random(in: 0..<Self.hugeLengths.count, using: &rng)]
                bytes.replaceSubrange(at..<(at + 4), with: huge)
                let r = Pipeline.run(
                    bytes, via: input, reference: s.records, renderFrom: max(1, index - 2),
                    renderCount: Self.renderWindow, frameLimit: s.records.count + 8, parseJSON: variant % 3 == 0)
                Self.checkMutated(s, r, label: label + " container length", untouched: index, firstMutation: at)
                if r.openError != nil { continue }  // inside what opening reads: checked above
                #expect(r.frames == index, "\(label): \(r.frames) frames before the bad length")
                let d = try #require(r.damage, "\(label): no damage for an impossible length")
                #expect(d.frame == record.frame, "\(label): \(d)")
                if s.isPcapng {
                    let previousEnd = index > 0 ? s.records[index - 1].end : Int64(s.firstRecordOffset)
                    #expect(d.offset >= previousEnd && d.offset <= record.fileOffset, "\(label): \(d)")
                } else {
                    #expect(d.offset == record.fileOffset, "\(label): \(d)")
                }
                containerVariants += 1
            } else {
                // A length inside the HCI packet: the reader does not care, the decoders must.
                guard let payloadAt = Self.payloadOffset(s, record) else {
                    Issue.record("\(label): payload not found in the record")
                    continue
                }
                let field = inner[Int.random(in: 0..<inner.count, using: &rng)]
                let at = payloadAt + field.offset
                let before = Array(bytes[at..<(at + field.width)])
                for k in 0..<field.width { bytes[at + k] = 0xFF }
                let changed = before != Array(bytes[at..<(at + field.width)])
                let r = Pipeline.run(
                    bytes, via: input, reference: s.records, renderFrom: max(1, index - 2),
                    renderCount: Self.renderWindow, frameLimit: s.records.count + 8, parseJSON: variant % 3 == 0)
                Self.checkMutated(s, r, label: label + " inner length", untouched: index, firstMutation: at)
                if r.openError != nil { continue }
                #expect(r.frames == s.records.count && r.damage == nil, "\(label): the container is intact")
                #expect(r.firstDivergence == (changed ? record.frame : nil), "\(label)")
                innerVariants += 1
            }
        }
        #expect(containerVariants >= 4)
        #expect(innerVariants + containerVariants >= 12)
    }

    // MARK: the large captures, whole

    /// The multi-megabyte captures are mutated through a prefix above; here the whole files are
    /// cut at a few boundaries and inside a few records (read and decoded in full, rendered
    /// around the cut).
    @Test(arguments: heavy)
    func heavyCapturesTruncated(_ relative: String) throws {
        let bytes = try Self.fileBytes(Fixtures.capture(relative))
        let (_, records, damage) = try Self.plainRead(bytes)
        #expect(damage == nil)
        let n = records.count
        var rng = SplitMix64(seed: UInt64(n))
        let r = records[Int.random(in: 0..<n, using: &rng)]
        let cuts: [(Int, Int?)] = [
            (Int(records[n / 2].fileOffset), nil),  // boundary: clean end
            (Int(records[n - 1].fileOffset), nil),
            (Int(records[n / 3].fileOffset) + 1, n / 3),  // inside a record: damage
            (Int(records[n - 1].end) - 1, n - 1),
            (Int(r.fileOffset) + r.recordLength / 2, r.frame - 1),
        ]
        for (i, (cut, damaged)) in cuts.enumerated() {
            let kept = damaged ?? records.prefix { $0.end <= Int64(cut) }.count
            let result = Pipeline.run(
                Array(bytes[..<cut]), via: i == 2 ? .pipe(chunk: 65536) : .file, reference: records,
                renderFrom: max(1, kept - 20), frameLimit: n + 8, parseJSON: true)
            let label = "\(relative) cut at \(cut)"
            #expect(result.problems.isEmpty, "\(label): \(result.problems.prefix(5))")
            #expect(result.openError == nil && result.frames == kept && result.firstDivergence == nil, "\(label)")
            if let damaged {
                #expect(result.damage?.frame == records[damaged].frame, "\(label)")
                #expect(result.damage?.offset == records[damaged].fileOffset, "\(label)")
            } else {
                #expect(result.damage == nil, "\(label)")
            }
        }
    }
}

import Foundation
import TestSupport
import Testing

@testable import CaptureArchive

#if canImport(Glibc)
    import Glibc
#endif

/// A decompressed member lives in memory until the process's members would pass their budget,
/// then on disk; either way a reader sees every byte written, in order.
@Suite struct ExtractedFileTests {
    static func bytes(_ count: Int, seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
    }

    static func readAll(_ file: ExtractedFile) throws -> [UInt8] {
        let fd = try file.reopen()
        defer { close(fd) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            out += buffer[0..<n]
        }
        return out
    }

    @Test func aSmallMemberStaysInMemory() throws {
        let file = try ExtractedFile()
        let data = Self.bytes(10_000, seed: 1)
        try data.withUnsafeBytes { try file.write($0.baseAddress!, count: $0.count) }
        #expect(file.isInMemory)
        #expect(file.size == 10_000)
        #expect(try Self.readAll(file) == data)
    }

    @Test func writesAfterTheMoveToDiskAppendInOrder() throws {
        // The budget is shared by the whole process (other tests' files count too): one of 1 byte
        // is passed by the first write whatever else is held, so every write lands on disk.
        let file = try ExtractedFile(budget: 1)
        let parts = [Self.bytes(700, seed: 2), Self.bytes(5_000, seed: 3), Self.bytes(70_000, seed: 4)]
        for part in parts {
            try part.withUnsafeBytes { try file.write($0.baseAddress!, count: $0.count) }
        }
        #expect(!file.isInMemory)
        #expect(file.size == 75_700)
        // Two readers, each from the start. (Compared as one Bool: a failure would print 75 k bytes.)
        let expected = parts.flatMap { $0 }
        #expect(try Self.readAll(file).elementsEqual(expected))
        #expect(try Self.readAll(file).elementsEqual(expected))
    }

    @Test func movingToDiskCarriesTheBytesHeldInMemory() throws {
        // Bytes written in memory first, then past the budget: the copy must carry them over.
        let first = Self.bytes(3_000, seed: 5)
        let file = try ExtractedFile(budget: ExtractedFile.memoryBudget)
        try first.withUnsafeBytes { try file.write($0.baseAddress!, count: $0.count) }
        #expect(file.isInMemory)
        let big = [UInt8](repeating: 0x5A, count: Int(ExtractedFile.memoryBudget) + 1)
        try big.withUnsafeBytes { try file.write($0.baseAddress!, count: $0.count) }
        #expect(!file.isInMemory)
        let back = try Self.readAll(file)
        #expect(back.count == first.count + big.count)
        let headKept = back[0..<first.count].elementsEqual(first)  // a Bool: a failure prints no 64 MiB
        #expect(headKept)
        #expect(back[first.count...].allSatisfy { $0 == 0x5A })
    }

    @Test func theDiskFileIsMadeUnderTheFolderGiven() throws {
        let scratch = try Scratch()
        let fd = try ExtractedFile.diskFile(in: scratch.path)
        defer { close(fd) }
        #expect(fd >= 0)
        // Made and unlinked at once: nothing is left in the folder while it is open.
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == [])
        #expect {
            _ = try ExtractedFile.diskFile(in: scratch.file("absent"))
        } throws: { error in
            "\(error)".contains("cannot create a temporary directory")
        }
    }
}

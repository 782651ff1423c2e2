import Foundation

/// The test corpus: files under the repository's own `captures/` folder, and nothing else.
///
/// Every test that reads a capture goes through here, so a fresh clone (with no corpus beside
/// it) has all it needs, and a missing file fails the test that wanted it with that
/// file's name — it never turns into an empty argument list or an out-of-range index.
public enum Fixtures {
    public static let repositoryRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        // Tests/TestSupport/Fixtures.swift -> repository root
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    public static let capturesRoot: URL = repositoryRoot.appendingPathComponent("captures")

    /// A fixture that should be in the repository and is not.
    public struct Missing: Error, CustomStringConvertible {
        public let path: String
        public var description: String {
            "missing test fixture \(path) (tests read only files inside the repository; see captures/README.md)"
        }
    }

    /// Path of a capture, relative to `captures/`: `capture("bumble/clean_heart_rate.central.btsnoop")`.
    /// Existence is not checked here (opening a missing path fails with its name anyway);
    /// `bytes(_:)` and `existing(_:)` check.
    public static func capture(_ relative: String) -> String {
        precondition(
            !relative.hasPrefix("/") && !relative.split(separator: "/").contains(".."),
            "fixtures are paths inside captures/: \(relative)")
        return capturesRoot.appendingPathComponent(relative).path
    }

    /// Path of a capture that must exist: throws `Missing` naming it otherwise.
    public static func existing(_ relative: String) throws -> String {
        let path = capture(relative)
        guard FileManager.default.fileExists(atPath: path) else { throw Missing(path: path) }
        return path
    }

    /// The bytes of a capture; throws `Missing` naming the file when it is not there.
    public static func bytes(_ relative: String) throws -> [UInt8] {
        try bytes(atPath: existing(relative))
    }

    /// The bytes of a file given by path (one `captures(in:)` returned); throws `Missing` naming it.
    public static func bytes(atPath path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else { throw Missing(path: path) }
        return [UInt8](data)
    }

    /// Every capture in a folder of `captures/` (files not ending in .md; subfolders left out), sorted.
    ///
    /// Meant for `@Test(arguments:)`: when the folder is missing or empty the list holds one path
    /// naming what is missing, so the parameterised test fails on it instead of running no case.
    public static func captures(in folder: String) -> [String] {
        let dir = capturesRoot.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        let files = names.filter { name in
            var isDirectory: ObjCBool = false
            return !name.hasSuffix(".md") && !name.hasSuffix(".json")
                && FileManager.default.fileExists(
                    atPath: dir.appendingPathComponent(name).path, isDirectory: &isDirectory)
                && !isDirectory.boolValue
        }
        guard !files.isEmpty else { return [dir.appendingPathComponent("<no captures in \(folder)>").path] }
        return files.sorted().map { dir.appendingPathComponent($0).path }
    }

    /// `path` relative to `captures/` ("public/x.log"), for readable test arguments and messages.
    public static func relative(_ path: String) -> String {
        let root = capturesRoot.path + "/"
        return path.hasPrefix(root) ? String(path.dropFirst(root.count)) : path
    }
}

extension Fixtures {
    /// A patch changed a record's length (`derivedBTSnoop` keeps every record's length).
    public struct PatchChangedLength: Error, CustomStringConvertible {
        public var frame: Int
        public var description: String { "the patch of frame \(frame) changed its length" }
    }

    /// A copy of a shipped btsnoop capture in a temporary file, without the records whose 1-based
    /// frame number is in `drop`, each kept record's packet (H4 type byte first) passed through
    /// `patch` (which must keep its length); returns the file's path.
    public static func derivedBTSnoop(
        _ relative: String, drop: Set<Int> = [],
        patch: (_ frame: Int, _ packet: inout [UInt8]) -> Void = { _, _ in }
    ) throws -> String {
        let data = try bytes(relative)
        var out = Array(data[0..<16])
        var i = 16
        var frame = 0
        func u32be(_ o: Int) -> Int { Int(data[o..<o + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }) }
        while i + 24 <= data.count {
            let incl = u32be(i + 4)
            guard i + 24 + incl <= data.count else { break }
            frame += 1
            if !drop.contains(frame) {
                var packet = Array(data[(i + 24)..<(i + 24 + incl)])
                patch(frame, &packet)
                guard packet.count == incl else { throw PatchChangedLength(frame: frame) }
                out += data[i..<(i + 24)] + packet
            }
            i += 24 + incl
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "blecap-derived-\(UUID().uuidString).btsnoop"
        ).path
        try Data(out).write(to: URL(fileURLWithPath: path))
        return path
    }
}

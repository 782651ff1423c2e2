import Foundation

/// Locates the project's `../shared` folder (captures, seeds, schemas, tools).
///
/// `BLECAP_SHARED` overrides; otherwise the folder next to the repository root. Tests that need
/// it fail (they are not skipped) when it is missing, so a green run always means they ran.
public enum SharedFixtures {
    public static let repositoryRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        // Tests/TestSupport/SharedFixtures.swift -> repository root
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    public static let sharedRoot: URL = {
        if let env = ProcessInfo.processInfo.environment["BLECAP_SHARED"], !env.isEmpty {
            return URL(fileURLWithPath: env)
        }
        return repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared")
    }()

    /// Path of a file under ../shared, e.g. `shared("captures/bumble/clean_heart_rate.central.btsnoop")`.
    public static func shared(_ relative: String) -> String {
        sharedRoot.appendingPathComponent(relative).path
    }

    /// Path of a file under the repository's own `captures/`.
    public static func bundled(_ name: String) -> String {
        repositoryRoot.appendingPathComponent("captures").appendingPathComponent(name).path
    }

    /// Every regular file in a ../shared folder whose name does not end in .md, sorted.
    public static func sharedFiles(in folder: String) -> [String] {
        let dir = sharedRoot.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { !$0.hasSuffix(".md") }.sorted().map { dir.appendingPathComponent($0).path }
    }
}

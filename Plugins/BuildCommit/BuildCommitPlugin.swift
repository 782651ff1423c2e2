import Foundation
import PackagePlugin

/// Tells BlecapCLI which commit it is built from, for `blecap --version`.
///
/// A build command runs scripts/build-commit.sh with /bin/sh, which asks git for the commit and
/// writes `BuildCommit.swift` into the plugin's work directory — outside the source tree, so the
/// checkout stays clean — rewriting it only when the commit or its dirty mark changed, so an
/// unchanged commit recompiles nothing and a new one recompiles BlecapCLI alone.
///
/// Why a build command with inputs and not a prebuild command: SwiftPM caches the build plan and
/// runs plugins (and so prebuild commands) only when it makes a new plan, which a commit does
/// not cause. A build command is rerun whenever one of its inputs changed: git's HEAD and HEAD
/// reflog (every commit, checkout, reset or merge appends to it), the index (staging), and the
/// package's source files (what makes a build "-dirty").
@main
struct BuildCommitPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let root = context.package.directoryURL
        let script = root.appending(path: "scripts/build-commit.sh")
        let output = context.pluginWorkDirectoryURL.appending(path: "generated")
        var inputs = [script, root.appending(path: "Package.swift")]
        inputs += GitDirectory.find(from: root).map(\.stateFiles) ?? []
        for case let module as SourceModuleTarget in context.package.targets {
            inputs += module.sourceFiles.map(\.url)
        }
        return [
            .buildCommand(
                displayName: "Recording the commit \(target.name) is built from",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [
                    script.path(percentEncoded: false),
                    root.path(percentEncoded: false),
                    output.path(percentEncoded: false),
                ],
                inputFiles: inputs,
                outputFiles: [output.appending(path: "BuildCommit.swift")])
        ]
    }
}

/// The git directory of a checkout: `.git` itself, or for a linked worktree (or submodule) the
/// directory its `.git` file points to with "gitdir: …".
struct GitDirectory {
    let url: URL

    static func find(from root: URL) -> GitDirectory? {
        let dotGit = root.appending(path: ".git")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dotGit.path(percentEncoded: false), isDirectory: &isDirectory)
        else { return nil }
        if isDirectory.boolValue { return GitDirectory(url: dotGit) }
        guard let text = try? String(contentsOf: dotGit, encoding: .utf8),
            let line = text.split(separator: "\n").first, line.hasPrefix("gitdir: ")
        else { return nil }
        let path = line.dropFirst("gitdir: ".count).trimmingCharacters(in: .whitespaces)
        return GitDirectory(url: path.hasPrefix("/") ? URL(fileURLWithPath: path) : root.appending(path: path))
    }

    /// The files whose change can change the commit or the dirty mark; only those that exist
    /// (a declared input that is missing would fail the build).
    var stateFiles: [URL] {
        ["HEAD", "logs/HEAD", "index"].map { url.appending(path: $0) }
            .filter { FileManager.default.fileExists(atPath: $0.path(percentEncoded: false)) }
    }
}

import Foundation
import PackagePlugin

/// Tells BlecapCLI which commit it is built from, for `blecap --version`.
///
/// A prebuild command (run before every build, with a system tool: SwiftPM allows no built
/// executable there) runs scripts/build-commit.sh, which asks git for the commit and writes
/// `BuildCommit.swift` into the plugin's work directory — outside the source tree, so the
/// checkout stays clean — and rewrites it only when the commit or its dirty mark changed, so an
/// unchanged commit recompiles nothing and a new one recompiles BlecapCLI alone.
@main
struct BuildCommitPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let root = context.package.directoryURL
        let output = context.pluginWorkDirectoryURL.appending(path: "generated")
        return [
            .prebuildCommand(
                displayName: "Recording the commit \(target.name) is built from",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [
                    root.appending(path: "scripts/build-commit.sh").path(percentEncoded: false),
                    root.path(percentEncoded: false),
                    output.path(percentEncoded: false),
                ],
                outputFilesDirectory: output),
        ]
    }
}

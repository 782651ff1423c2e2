/// What `blecap --version` prints: "blecap 0.1.0 (commit 1a2b3c4d5e6f)".
public enum BlecapVersion {
    /// The release number, kept here and nowhere else.
    public static let number = "0.1.0"

    /// The commit the binary was built from (12 hex digits, "-dirty" when tracked files had
    /// uncommitted changes, "unknown" outside a git checkout), recorded at build time by the
    /// BuildCommit plugin (Plugins/BuildCommit, scripts/build-commit.sh).
    public static let commit = buildCommit

    public static let description = "blecap \(number) (commit \(commit))"
}

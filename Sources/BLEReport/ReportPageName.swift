/// The file names of `blecap report`'s pages.
package enum ReportPageName {
    /// `capture.btsnoop` → `capture.html` (in the current directory).
    package static func of(_ path: String) -> String {
        if path == "-" { return "report.html" }
        var name = lastPathComponent(path)
        let ext = pathExtension(name)
        if !ext.isEmpty && ext.count <= 8 { name = deletingPathExtension(name) }
        return name + ".html"
    }

    /// `of(path)` in `directory`, numbered (`capture-2.html`) when a page of `used` has it.
    package static func unique(in directory: String, for path: String, used: inout Set<String>) -> String {
        let base = of(path)
        var name = base
        var n = 2
        while used.contains(name) {
            name = deletingPathExtension(base) + "-\(n).html"
            n += 1
        }
        used.insert(name)
        if name.isEmpty { return directory }
        if directory.isEmpty { return name }
        return directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    // NSString's path rules, which these names were first made with: runs of "/" count as one
    // and a trailing "/" is dropped; an extension follows the last component's last ".", unless
    // that "." starts the component or the component is "..".

    static func fixingSlashes(_ path: String) -> String {
        var fixed = ""
        var slash = false
        for c in path {
            if c == "/" && slash { continue }
            slash = c == "/"
            fixed.append(c)
        }
        if fixed.count > 1 && fixed.hasSuffix("/") { fixed.removeLast() }
        return fixed
    }

    static func lastComponentStart(_ path: String) -> String.Index {
        path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
    }

    /// Where the extension starts (after its "."), if there is one.
    static func extensionStart(_ path: String) -> String.Index? {
        let start = lastComponentStart(path)
        guard let dot = path[start...].lastIndex(of: "."), dot != start, path[start...] != ".." else { return nil }
        return path.index(after: dot)
    }

    static func lastPathComponent(_ path: String) -> String {
        let fixed = fixingSlashes(path)
        if fixed.count <= 1 { return fixed }
        return String(fixed[lastComponentStart(fixed)...])
    }

    static func pathExtension(_ path: String) -> String {
        let fixed = fixingSlashes(path)
        if fixed.count <= 1 { return "" }
        return extensionStart(fixed).map { String(fixed[$0...]) } ?? ""
    }

    static func deletingPathExtension(_ path: String) -> String {
        let fixed = fixingSlashes(path)
        if fixed == "/" { return fixed }
        return extensionStart(fixed).map { String(fixed[..<fixed.index(before: $0)]) } ?? fixed
    }
}

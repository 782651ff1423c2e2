import Foundation

/// The file names of `blecap report`'s pages.
package enum ReportPageName {
    /// `capture.btsnoop` → `capture.html` (in the current directory).
    package static func of(_ path: String) -> String {
        if path == "-" { return "report.html" }
        var name = (path as NSString).lastPathComponent
        let ext = (name as NSString).pathExtension
        if !ext.isEmpty && ext.count <= 8 { name = (name as NSString).deletingPathExtension }
        return name + ".html"
    }

    /// `of(path)` in `directory`, numbered (`capture-2.html`) when a page of `used` has it.
    package static func unique(in directory: String, for path: String, used: inout Set<String>) -> String {
        let base = of(path)
        var name = base
        var n = 2
        while used.contains(name) {
            name = (base as NSString).deletingPathExtension + "-\(n).html"
            n += 1
        }
        used.insert(name)
        return (directory as NSString).appendingPathComponent(name)
    }
}

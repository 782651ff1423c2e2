/// The report page's script, `Resources/report.js`: parses the JSON blob and draws the header,
/// the zoomable swim-lane timeline, the plots, the sequence charts (lazily, when a connection is
/// opened), the GATT trees and the findings. Sets `data-ready="1"` on <body> when done, or
/// `data-error` with the message if anything throws (the browser check reads both).
///
/// The file is compiled into the module (`.embedInCode` in Package.swift): the bytes are in the
/// binary, so an installed `blecap` needs no resource bundle beside it.
enum ReportScript {
    static let js = ReportResource.text(PackageResources.report_js)
}

/// The report's stylesheet, `Resources/report.css`, compiled in like the script.
enum ReportStyle {
    static let css = ReportResource.text(PackageResources.report_css)
}

enum ReportResource {
    /// The file's text without its final newline (the page puts the closing tag right after it).
    /// The newline is cut from the bytes: `String.dropLast()` walked the whole text by Character,
    /// 4.7 M instructions of `blecap report` for the two files (docs/performance.md). A final
    /// CR LF is one Character that `hasSuffix("\n")` did not match, so it stays, as it did.
    static func text(_ bytes: [UInt8]) -> String {
        var end = bytes.count
        if end > 0, bytes[end - 1] == UInt8(ascii: "\n"), end == 1 || bytes[end - 2] != UInt8(ascii: "\r") {
            end -= 1
        }
        return String(decoding: bytes[..<end], as: UTF8.self)
    }
}

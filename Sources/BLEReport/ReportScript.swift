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
    static func text(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }
}

import Foundation
import TestSupport
import Testing

@testable import BLEReport

/// The page's script and stylesheet are files (Sources/BLEReport/Resources), compiled into the
/// module; the page carries them byte for byte.
@Suite("report script and style files")
struct ReportScriptTests {
    static func resource(_ name: String) throws -> String {
        let url = Fixtures.repositoryRoot.appendingPathComponent("Sources/BLEReport/Resources/\(name)")
        return String(decoding: try Fixtures.bytes(atPath: url.path), as: UTF8.self)
    }

    @Test func renderedPageCarriesTheScriptUnchanged() throws {
        let js = try Self.resource("report.js")
        let css = try Self.resource("report.css")
        #expect(js.hasSuffix("})();\n"))
        // The file's final newline is the file's; the page has `</script>` right after the code.
        #expect(ReportScript.js + "\n" == js)
        #expect(ReportStyle.css + "\n" == css)

        let path = try Fixtures.existing("bumble/clean_heart_rate.central.btsnoop")
        let built = SessionReportBuilder.build(paths: [path])
        let html = HTMLReportRenderer.render(built.map(\.model))
        #expect(html.contains("<script>\n" + String(js.dropLast()) + "</script>\n</body>"))
        #expect(html.contains("<style>\n" + String(css.dropLast()) + "</style>"))
        #expect(html.components(separatedBy: "<script>").count == 2)
    }

    /// The final newline is cut from the bytes as `hasSuffix("\n")` and `dropLast()` cut it
    /// from the text: only a final line feed, and not one that ends a CR LF (one Character).
    @Test func resourceTextLosesOnlyAFinalLineFeed() {
        #expect(ReportResource.text(Array("a;\n".utf8)) == "a;")
        #expect(ReportResource.text(Array("a;".utf8)) == "a;")
        #expect(ReportResource.text(Array("\n".utf8)) == "")
        #expect(ReportResource.text([]) == "")
        #expect(ReportResource.text(Array("é\n\n".utf8)) == "é\n")
        #expect(ReportResource.text(Array("e\u{301}\n".utf8)) == "e\u{301}")
        #expect(ReportResource.text(Array("a\r\n".utf8)) == "a\r\n")
        #expect(ReportResource.text(Array("\r\n".utf8)) == "\r\n")
        #expect(ReportResource.text(Array("a\r".utf8)) == "a\r")
    }
}

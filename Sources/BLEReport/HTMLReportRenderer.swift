import BLEBytes
import FoundationEssentials

/// Renders report models as one self-contained HTML document: inline CSS, one inline script,
/// and the models as one JSON blob the script draws from (SVG built in the browser). Nothing is
/// loaded from anywhere: the file opens offline, attached to a ticket.
///
/// The page's size follows the model's, which is bounded (`SessionReportModel.Limits`), not the
/// capture's; the DOM holds one node per bucket, bar or sequence row, never one per frame, and
/// sequence charts are drawn only when their connection is opened.
public enum HTMLReportRenderer {
    /// One capture per page section; `blecap report` passes one, `blecap lint --format html`
    /// all it linted. The page goes into `stream` as it is written: the models' JSON is encoded
    /// straight into it, never held as a tree or a string, so writing a page takes the stream's
    /// buffer beyond the models themselves.
    public static func render(_ models: [SessionReportModel], title: String? = nil, to stream: PageStream) {
        let heading =
            title
            ?? (models.count == 1
                ? "blecap report — \(fileName(models[0].header.path))"
                : "blecap report — \(models.count) captures")
        stream.write("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        stream.write("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        stream.write("<meta name=\"generator\" content=\"blecap\">\n")
        stream.write("<title>\(escape(heading))</title>\n<style>\n")
        stream.write(ReportStyle.css)
        stream.write("</style>\n</head>\n")
        stream.write(
            "<body data-ready=\"0\">\n<noscript><p class=\"noscript\">This report draws its charts with an inline script: enable JavaScript to see it.</p></noscript>\n"
        )
        stream.write("<main id=\"report\"><h1>\(escape(heading))</h1></main>\n")
        stream.write("<script id=\"blecap-data\" type=\"application/json\">")
        json(models, to: stream)
        stream.write("</script>\n<script>\n")
        stream.write(ReportScript.js)
        stream.write("</script>\n</body>\n</html>\n")
        stream.flush()
    }

    /// One capture's page (`blecap report`), handed to `sink` a buffer at a time as it is
    /// written (never whole in memory); returns its size in bytes.
    @discardableResult
    public static func render(_ model: SessionReportModel, sink: @escaping PageStream.Sink) -> Int {
        let stream = PageStream(sink: sink)
        render([model], to: stream)
        return stream.total
    }

    /// The whole page as one string (`blecap lint --format html`, which writes its text at once).
    public static func render(_ models: [SessionReportModel], title: String? = nil) -> String {
        var bytes: [UInt8] = []
        render(models, title: title, to: PageStream { bytes.append(contentsOf: $0) })
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The models as JSON safe inside a `<script>` element: every `<`, `>` and `&` is written as
    /// `\u003c`… (valid JSON, since they only occur inside strings), so no `</script>` or `<!--`
    /// can end or confuse the element (`PageStream.scriptSafeJSONString`).
    static func json(_ models: [SessionReportModel], to stream: PageStream) {
        // Nothing in the models throws (a NaN would be written as null), so the data is never cut
        // short.
        try? JSONStreamEncoder(into: stream).encode(models)
    }

    static func escape(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    static func fileName(_ path: String) -> String {
        path == "-" ? "standard input" : (path.split(separator: "/").last.map(String.init) ?? path)
    }
}

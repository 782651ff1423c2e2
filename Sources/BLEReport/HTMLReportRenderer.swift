import BLEBytes
import Foundation

/// Renders report models as one self-contained HTML document: inline CSS, one inline script,
/// and the models as one JSON blob the script draws from (SVG built in the browser). Nothing is
/// loaded from anywhere: the file opens offline, attached to a ticket.
///
/// The page's size follows the model's, which is bounded (`SessionReportModel.Limits`), not the
/// capture's; the DOM holds one node per bucket, bar or sequence row, never one per frame, and
/// sequence charts are drawn only when their connection is opened.
public enum HTMLReportRenderer {
    /// One capture per page section; `blecap report` passes one, `blecap lint --format html`
    /// all it linted.
    public static func render(_ models: [SessionReportModel], title: String? = nil) -> String {
        let heading =
            title
            ?? (models.count == 1
                ? "blecap report — \(fileName(models[0].header.path))"
                : "blecap report — \(models.count) captures")
        var html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        html += "<meta name=\"generator\" content=\"blecap\">\n"
        html += "<title>\(escape(heading))</title>\n<style>\n\(ReportStyle.css)</style>\n</head>\n"
        html +=
            "<body data-ready=\"0\">\n<noscript><p class=\"noscript\">This report draws its charts with an inline script: enable JavaScript to see it.</p></noscript>\n"
        html += "<main id=\"report\"><h1>\(escape(heading))</h1></main>\n"
        html += "<script id=\"blecap-data\" type=\"application/json\">"
        html += json(models)
        html += "</script>\n<script>\n\(ReportScript.js)</script>\n</body>\n</html>\n"
        return html
    }

    /// The models as JSON safe inside a `<script>` element: every `<` is written as `\u003c`
    /// (valid JSON, since `<` only occurs inside strings), so no `</script>` or `<!--` can end
    /// or confuse the element (HTML 13.2.6.2, script data states).
    static func json(_ models: [SessionReportModel]) -> String {
        // The models hold no NaN or infinity (the encoder refuses them); if one ever did, the page
        // would show no data rather than break.
        let text = (try? JSONDocumentEncoder().encode(models)) ?? "[]"
        var out = ""
        out.reserveCapacity(text.utf8.count + 64)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "<": out += "\\u003c"
            case ">": out += "\\u003e"
            case "&": out += "\\u0026"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
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

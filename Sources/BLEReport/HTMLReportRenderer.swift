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
        var text = (try? JSONDocumentEncoder().encode(models)) ?? "[]"
        // On the UTF-8 bytes, not scalar by scalar (appending each scalar to a String was 15 %
        // of `blecap report`): the five characters are ASCII or, for U+2028/U+2029, the three
        // bytes E2 80 A8/A9, which no other scalar's encoding contains.
        return text.withUTF8 { bytes in
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count + 64)
            var i = 0
            while i < bytes.count {
                let b = bytes[i]
                switch b {
                case UInt8(ascii: "<"): out.append(contentsOf: "\\u003c".utf8)
                case UInt8(ascii: ">"): out.append(contentsOf: "\\u003e".utf8)
                case UInt8(ascii: "&"): out.append(contentsOf: "\\u0026".utf8)
                case 0xE2
                where i + 2 < bytes.count && bytes[i + 1] == 0x80 && (bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9):
                    out.append(contentsOf: (bytes[i + 2] == 0xA8 ? "\\u2028" : "\\u2029").utf8)
                    i += 2
                default: out.append(b)
                }
                i += 1
            }
            return String(decoding: out, as: UTF8.self)
        }
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

import BLEBytes
import Foundation
import TestSupport
import Testing

@testable import BLEReport

/// The page's data is streamed (`JSONStreamEncoder` into a `PageStream`): it must be the text
/// the document encoder gives, made script-safe, and the page must not depend on how the
/// stream's buffer cut it.
@Suite struct PageStreamTests {
    /// The page data as it was written before streaming: the document tree's compact text, then
    /// `<`, `>`, `&`, U+2028 and U+2029 escaped over the whole text.
    static func documentJSON(_ models: [SessionReportModel]) throws -> String {
        let text = try JSONDocumentEncoder().encode(models)
        var out = ""
        for u in text.unicodeScalars {
            switch u {
            case "<": out += "\\u003c"
            case ">": out += "\\u003e"
            case "&": out += "\\u0026"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            default: out.unicodeScalars.append(u)
            }
        }
        return out
    }

    static func streamed(_ value: some Encodable, capacity: Int = 1 << 16) throws -> String {
        var bytes: [UInt8] = []
        let stream = PageStream(capacity: capacity) { bytes.append(contentsOf: $0) }
        try JSONStreamEncoder(into: stream).encode(value)
        stream.flush()
        #expect(stream.total == bytes.count)
        return String(decoding: bytes, as: UTF8.self)
    }

    static let corpus = Fixtures.captures(in: "bumble") + Fixtures.captures(in: "linklayer")

    @Test(arguments: corpus)
    func streamedDataIsTheDocumentEncodersText(_ path: String) throws {
        let model = SessionReportBuilder.build(path: path).model
        let expected = try Self.documentJSON([model])
        #expect(try Self.streamed([model]) == expected, "\(Fixtures.relative(path))")
        // A buffer far smaller than most strings cuts them anywhere: the same bytes.
        #expect(try Self.streamed([model], capacity: 16) == expected, "\(Fixtures.relative(path))")
    }

    @Test func pageDataParsesAndCarriesTheModel() throws {
        let path = try Fixtures.existing("bumble/long_notify_stream.central.btsnoop")
        let model = SessionReportBuilder.build(path: path).model
        let html = HTMLReportRenderer.render([model])
        let open = "<script id=\"blecap-data\" type=\"application/json\">"
        let data = try #require(html.components(separatedBy: open).last?.components(separatedBy: "</script>").first)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [[String: Any]])
        let page = try #require(parsed.first)
        let header = try #require(page["header"] as? [String: Any])
        #expect(header["frames"] as? Int == model.header.frames)
        let connections = try #require(page["connections"] as? [[String: Any]])
        #expect(connections.count == model.connections.count)
        #expect(connections.first?["notifications"] as? Int == model.connections.first?.notifications)
        let notifications = try #require(connections.first?["sequence"] as? [[String: Any]]).filter {
            $0["op"] as? String == "Notification"
        }
        #expect(notifications.compactMap { $0["count"] as? Int } == [5_040])
    }

    struct Nested: Encodable {
        var name = "</script><!-- \u{2028}\u{2029} \"quoted\" \\ \t\n\u{01} & >"
        var empty = Empty()
        var list: [Int64] = [0, -1, .min, .max]
        var unsigned: UInt64 = .max
        var ratio = 0.1
        var missing: Int? = nil
        var present: Int? = 3
        var nothing: Double = .nan
        struct Empty: Encodable { func encode(to encoder: any Encoder) throws {} }

        enum CodingKeys: String, CodingKey {
            case name, empty, list, unsigned, ratio, missing, present, nothing, manual
        }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(name, forKey: .name)
            try c.encode(empty, forKey: .empty)
            try c.encode(list, forKey: .list)
            try c.encode(unsigned, forKey: .unsigned)
            try c.encode(ratio, forKey: .ratio)
            try c.encodeIfPresent(missing, forKey: .missing)
            try c.encodeIfPresent(present, forKey: .present)
            // Nested containers are closed when their parent moves on.
            var nested = c.nestedContainer(keyedBy: CodingKeys.self, forKey: .manual)
            try nested.encodeNil(forKey: .missing)
            var inner = nested.nestedUnkeyedContainer(forKey: .list)
            try inner.encode(true)
            try inner.encode("a")
            try c.encode(nothing, forKey: .nothing)
        }
    }

    @Test func encoderWritesWhatTheDocumentEncoderWritesAndEscapesForScripts() throws {
        let text = try Self.streamed(Nested())
        #expect(
            text
                == #"{"name":"\u003c/script\u003e\u003c!-- \u2028\u2029 \"quoted\" \\ \t\n\u0001 \u0026 \u003e","#
                + #""empty":{},"list":[0,-1,-9223372036854775808,9223372036854775807],"#
                + #""unsigned":18446744073709551615,"ratio":0.1,"present":3,"#
                + #""manual":{"missing":null,"list":[true,"a"]},"nothing":null}"#)
        #expect(try JSONSerialization.jsonObject(with: Data(text.utf8)) is [String: Any])
    }

    @Test func streamHandsOverFullBuffersAndPassesLargeWritesThrough() {
        var chunks: [Int] = []
        let stream = PageStream(capacity: 64) { chunks.append($0.count) }
        for _ in 0..<10 { stream.write("0123456789") }
        stream.write(String(repeating: "x", count: 200))
        stream.flush()
        #expect(stream.total == 300)
        #expect(chunks.reduce(0, +) == 300)
        // Buffered writes never exceed the buffer; the 200-byte one went through whole.
        #expect(chunks.filter { $0 > 64 } == [200])
    }
}

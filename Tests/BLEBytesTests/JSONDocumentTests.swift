import BLEBytes
import Foundation
import Testing

@Suite("JSONDocumentEncoder: keys in encoding order, one escaping")
struct JSONDocumentTests {
    struct Inner: Encodable {
        var z = 1
        var a: [Int] = [1, 2]
        var none: String? = nil
    }

    struct Outer: Encodable {
        var seq = 7
        var text = "quote \" backslash \\ newline \n tab \t bell \u{7} slash / é"
        var inner = Inner()
        var empty: [String] = []
        var ratio = 0.5
        var big: UInt64 = .max
        var flag = true
    }

    @Test func compactKeepsDeclarationOrderAndEscapesLikeJSONQuoting() throws {
        let text = try JSONDocumentEncoder().encode(Outer())
        #expect(
            text
                == #"{"seq":7,"text":"quote \" backslash \\ newline \n tab \t bell \u0007 slash / é","inner":{"z":1,"a":[1,2]},"empty":[],"ratio":0.5,"big":18446744073709551615,"flag":true}"#
        )
        // Parses back to the same values.
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(parsed["text"] as? String == Outer().text)
        // The same every time: no hash order.
        for _ in 0..<5 { #expect(try JSONDocumentEncoder().encode(Outer()) == text) }
    }

    @Test func prettyIndentsTwoSpaces() throws {
        struct Baseline: Encodable {
            var version = 1
            var fingerprints: [String]
        }
        #expect(
            JSONDocument.render(Baseline(fingerprints: ["a", "b"]), style: .pretty)
                == "{\n  \"version\": 1,\n  \"fingerprints\": [\n    \"a\",\n    \"b\"\n  ]\n}\n")
        #expect(
            JSONDocument.render(Baseline(fingerprints: []), style: .pretty)
                == "{\n  \"version\": 1,\n  \"fingerprints\": []\n}\n")
    }

    @Test func nonFiniteNumbersAreRefused() {
        #expect(throws: EncodingError.self) { try JSONDocumentEncoder().encode([Double.nan]) }
    }

    @Test func explicitNullAndNestedContainers() throws {
        struct Custom: Encodable {
            enum K: String, CodingKey { case b, a, list }
            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: K.self)
                try c.encode(Optional<Int>.none, forKey: .b)
                var n = c.nestedContainer(keyedBy: AnyKey.self, forKey: .a)
                try n.encode(2, forKey: AnyKey("20"))
                try n.encode(1, forKey: AnyKey("3"))
                var l = c.nestedUnkeyedContainer(forKey: .list)
                try l.encodeNil()
                try l.encode("x")
            }
        }
        #expect(try JSONDocumentEncoder().encode(Custom()) == #"{"b":null,"a":{"20":2,"3":1},"list":[null,"x"]}"#)
    }

    @Test func decodesAnyValue() throws {
        let v = try JSONDecoder().decode(JSONValue.self, from: Data(#"{"a":[1,-2,0.5,"s",null,true]}"#.utf8))
        #expect(
            v == .object([.init("a", .array([.int(1), .int(-2), .double(0.5), .string("s"), .null, .bool(true)]))]))
    }
}

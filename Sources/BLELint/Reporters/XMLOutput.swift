/// A small XML model for the documents blecap writes (JUnit): elements with ordered
/// attributes, element children or text, printed as an XML 1.0 document. Every attribute value
/// and text goes through one escaping function, `Escape.xml`, when the document is printed.
/// (Not `XMLElement`/`XMLDocument`: Foundation has those names on Apple platforms.)
public enum XMLOutput {}

extension XMLOutput {
    public struct Element: Sendable, Equatable {
        public var name: String
        /// In document order.
        public var attributes: [Attribute]
        public var children: [Element]
        public var text: String?
        /// Children on the same line as the tags (`<a><b/></a>`), not indented below them.
        public var inline: Bool

        public struct Attribute: Sendable, Equatable {
            public var name: String
            public var value: String
        }

        public init(
            _ name: String, _ attributes: KeyValuePairs<String, String> = [:], inline: Bool = false,
            children: [Element] = [], text: String? = nil
        ) {
            self.name = name
            self.attributes = attributes.map { Attribute(name: $0.key, value: $0.value) }
            self.children = children
            self.text = text
            self.inline = inline
        }
    }

    /// An XML 1.0 document: the declaration, then the root element indented two spaces a level.
    /// An element without content is written `<a/>`; one with text keeps it on its line.
    public struct Document: Sendable {
        public var root: Element

        public init(root: Element) { self.root = root }

        public var text: String {
            var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            Self.write(root, indent: "", into: &out)
            return out
        }

        static func write(_ e: Element, indent: String, into out: inout String) {
            out += indent
            if e.inline || e.text != nil || e.children.isEmpty {
                writeInline(e, into: &out)
            } else {
                startTag(e, into: &out)
                out += ">\n"
                for c in e.children { write(c, indent: indent + "  ", into: &out) }
                out += indent + "</" + e.name + ">"
            }
            out += "\n"
        }

        private static func startTag(_ e: Element, into out: inout String) {
            out += "<" + e.name
            for a in e.attributes { out += " " + a.name + "=\"" + Escape.xml(a.value) + "\"" }
        }

        /// The element on one line: `<a x="1"/>`, `<a>text</a>`, `<a><b/></a>`.
        private static func writeInline(_ e: Element, into out: inout String) {
            startTag(e, into: &out)
            if e.text == nil && e.children.isEmpty {
                out += "/>"
                return
            }
            out += ">"
            if let text = e.text { out += Escape.xml(text) }
            for c in e.children { writeInline(c, into: &out) }
            out += "</" + e.name + ">"
        }
    }
}

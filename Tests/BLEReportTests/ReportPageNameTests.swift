import Testing

@testable import BLEReport

/// The report pages' file names: NSString's path rules, which named them first.
@Suite struct ReportPageNameTests {
    @Test(arguments: [
        ("capture.btsnoop", "capture.html"),
        ("dir/sub/capture.pcapng", "capture.html"),
        ("dir//capture.btsnoop", "capture.html"),
        ("dir/", "dir.html"),
        ("noext", "noext.html"),
        (".hidden", ".hidden.html"),
        ("a.", "a..html"),
        ("x/..b", "..html"),
        ("a.b.c", "a.b.html"),
        ("long.extension12", "long.extension12.html"),
        ("sp ace.btsnoop", "sp ace.html"),
        ("-", "report.html"),
        ("/", "/.html"),
        ("", ".html"),
        ("..", "...html"),
        ("a/.", "..html"),
        ("x.tar.gz", "x.tar.html"),
    ])
    func names(path: String, name: String) {
        #expect(ReportPageName.of(path) == name)
    }

    @Test func repeatedNamesAreNumberedInTheirDirectory() {
        var used: Set<String> = []
        #expect(ReportPageName.unique(in: "out", for: "x/same.btsnoop", used: &used) == "out/same.html")
        #expect(ReportPageName.unique(in: "out/", for: "y/same.btsnoop", used: &used) == "out/same-2.html")
        #expect(ReportPageName.unique(in: "out//", for: "z/same.pcap", used: &used) == "out//same-3.html")
    }
}

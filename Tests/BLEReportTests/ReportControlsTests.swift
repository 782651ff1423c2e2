import BLEBytes
import Foundation
import TestSupport
import Testing

@testable import BLEReport

/// The data behind the page's controls (search box, connection filter, legend toggles, the
/// folded RSSI entry); scripts/conformance.py ("report controls") drives them in Chromium.
@Suite struct ReportControlsTests {
    static let domyos = "public/btsnoop-android_domyos-treadmill-ftms.log"

    /// The domyos capture has 8 advertisers (reports, as `blecap info` counts them: 232, 138,
    /// 8, 6, 5, 3, 2 and 1), all with RSSI; the plot draws the six most heard and folds
    /// DC:A9:04:96:80:51 (2 reports) and A4:C1:38:0B:4A:69 (1).
    @Test func domyosFoldsItsTwoLeastHeardAdvertisers() throws {
        let (m, _) = SessionReportBuilder.build(path: Fixtures.capture(Self.domyos))
        #expect(m.devices.count == 8)
        #expect(m.devices.allSatisfy { $0.rssi != nil })
        #expect(m.devices.filter(\.folded).map(\.address) == ["A4:C1:38:0B:4A:69", "DC:A9:04:96:80:51"])
        #expect(m.devices.filter { !$0.folded }.map(\.reports).sorted(by: >) == [232, 138, 8, 6, 5, 3])
        let html = HTMLReportRenderer.render([m])
        #expect(html.components(separatedBy: "\"folded\":true").count - 1 == 2)
        #expect(html.components(separatedBy: "\"folded\":false").count - 1 == 6)
    }

    /// Ranked by reports; a tie keeps the order of first sighting; a device without an RSSI
    /// series is neither drawn nor folded; nothing folds at or under the limit.
    @Test func foldRanksByReportsAndKeepsFirstSeenOnTies() {
        func device(_ n: Int, _ reports: Int, rssi: Bool = true) -> AdvertiserModel {
            AdvertiserModel(
                address: "00:00:00:00:00:0\(n)", name: nil, reports: reports, connectable: false,
                rssi: rssi ? BucketSeries(start: 0, width: 10_000, capacity: 4) : nil)
        }
        let devices = [device(0, 5), device(1, 9), device(2, 5), device(3, 50, rssi: false), device(4, 1)]
        #expect(RSSIFold.folded(devices, limit: 2) == [2, 4])
        #expect(RSSIFold.folded(devices, limit: 4) == [])
        #expect(RSSIFold.folded(devices, limit: 0) == [0, 1, 2, 4])
    }

    /// The connection filter lists each connection by number, handle and peer: the page's JSON
    /// carries the handle for all six connections of reconnect_storm (0x0001 each time, the
    /// controller reusing it, as `blecap info --format json` gives them), and the script builds
    /// the search box, its count and the filter.
    @Test func pageCarriesTheControlsAndTheirData() throws {
        let (m, _) = SessionReportBuilder.build(path: Fixtures.capture("bumble/reconnect_storm.central.btsnoop"))
        #expect(m.connections.map(\.number) == [1, 2, 3, 4, 5, 6])
        #expect(m.connections.allSatisfy { $0.facts?.handle == 1 && $0.peer == "D8:0D:18:00:00:01" })
        let html = HTMLReportRenderer.render([m])
        for control in [
            "\"data-control\": \"search\"", "\"data-control\": \"search-count\"", "\"data-control\": \"connection\"",
        ] {
            #expect(html.contains(control))
        }
        #expect(html.contains("\"data-search-row\": \"\""))
        #expect(html.contains("class: \"series others\""))
        #expect(!html.contains("<script src") && !html.contains("<link"))
    }
}

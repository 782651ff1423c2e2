import BLETimeline
import Foundation
import Testing

@testable import BLELint

/// `blecap explain RULE --platform android`: where a rule's points name what Core Bluetooth
/// enforces, the page says what Android's stack does instead; the docs/rules pages (no
/// platform) and the other platforms keep the Core Bluetooth points.
@Suite struct RuleDocsAndroidTests {
    static func section(_ page: String) -> String {
        let start = page.range(of: "## What it enforces\n\n")!.upperBound
        let end = page.range(of: "\n## References", range: start..<page.endIndex)!.lowerBound
        return String(page[start..<end])
    }

    @Test func androidPointsReplaceCoreBluetoothsWhereTheRuleHasThem() throws {
        let d = try #require(RuleRegistry.rule(named: "oversized-write")).descriptor
        let android = Self.section(RuleDocs.markdown(d, platform: .android))
        #expect(android.contains("`onMtuChanged`") && android.contains("`requestMtu`"))
        #expect(!android.contains("maximumWriteValueLength"))
        for platform: Platform? in [nil, .apple, .linux] {
            let points = Self.section(RuleDocs.markdown(d, platform: platform))
            #expect(points == d.enforces.map { "- \($0)\n" }.joined())
        }
    }

    /// Every rule whose points name a Core Bluetooth API (a backticked name with `(_:` or a
    /// CB-only state) has Android points, and those name no Core Bluetooth API.
    @Test func noCoreBluetoothNameInAndroidPoints() {
        let coreBluetooth = ["(_:", "(for:", "withoutResponse", "withResponse", "poweredOn", "withServices"]
        for r in RuleRegistry.descriptors where r.android != nil {
            let page = Self.section(RuleDocs.markdown(r, platform: .android))
            for name in coreBluetooth {
                #expect(!page.contains(name), "\(r.slug): \(name) in its Android points")
            }
        }
    }
}

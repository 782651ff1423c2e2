import BLELint
import Foundation
import TestSupport
import Testing

/// Every reference a rule gives is one its reader can follow: public API documentation (Apple's
/// Core Bluetooth, Android's `android.bluetooth`), a Core Specification section, or the rule's
/// page in docs/rules. Nothing names a file of the material the rules were first written from.
@Suite struct RuleReferencesTests {
    /// File names of that material (three digits, an underscore, 16 hex digits, `.txt`), its
    /// folder's name, and the headings it used, none of which a reader can look up.
    static let unfollowable = [
        #"[0-9]{3}_[0-9a-f]*\.txt"#, #"[0-9]{3}_\*\.txt"#, #"(?i)\bseeds?\b"#, #"(?i)common mistakes"#,
        #"(?i)review checklist"#, "DON'T:", #"(?i)\bguidance\b"#,
    ]

    static func unfollowableMatches(_ text: String) -> [String] {
        unfollowable.compactMap { pattern in
            text.firstMatch(of: try! Regex(pattern)).map { String(text[$0.range]) }
        }
    }

    @Test func thePatternsCatchWhatTheyAreFor() {
        // The old page's lines, so the check cannot pass by matching nothing.
        #expect(!Self.unfollowableMatches("GuidanceReference(\"seeds/000_3544d9c463fa42d7.txt\", …)").isEmpty)
        #expect(!Self.unfollowableMatches("(002_*.txt, \"Reading a Value\")").isEmpty)
        #expect(!Self.unfollowableMatches("- Common Mistakes: DON'T: Lose the peripheral reference").isEmpty)
        #expect(!Self.unfollowableMatches("The points of the project's Core Bluetooth guidance").isEmpty)
        #expect(Self.unfollowableMatches("- Core Bluetooth: `CBPeripheral.canSendWriteWithoutResponse`").isEmpty)
    }

    @Test func noRuleOutputNamesAFileItsReaderLacks() throws {
        for d in RuleRegistry.descriptors {
            let texts =
                [d.title, d.summary, d.fix, d.android?.text ?? "", d.android?.fix ?? ""] + d.enforces
                + d.references.map(\.text) + d.thresholds.map(\.help)
                + ([nil] + Platform.allCases).map { RuleDocs.markdown(d, platform: $0) }
            for text in texts {
                let found = Self.unfollowableMatches(text)
                #expect(found.isEmpty, "\(d.id) \(d.slug): \(found)")
            }
        }
        let sarif = SARIFReporter.render([])
        #expect(Self.unfollowableMatches(sarif).isEmpty)
    }

    @Test func noDocsRulesPageNamesAFileItsReaderLacks() throws {
        let dir = Fixtures.repositoryRoot.appendingPathComponent("docs/rules")
        let pages = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".md") }
        #expect(pages.count >= RuleRegistry.descriptors.count)
        for page in pages {
            let text = try String(contentsOf: dir.appendingPathComponent(page), encoding: .utf8)
            let found = Self.unfollowableMatches(text)
            #expect(found.isEmpty, "docs/rules/\(page): \(found)")
        }
    }

    /// Names of the guidance files and the word for their folder, wherever a reader of the
    /// repository meets them. "seed" alone stays allowed: random generators and fuzzers have
    /// seeds.
    static let guidanceFileNames = [
        #"[0-9]{3}_[0-9a-f]{16}\.txt"#, #"[0-9]{3}_\*\.txt"#, #"shared/seeds"#, #"(?i)\bthe seeds\b"#,
        #"(?i)\bseeds'"#, #"(?i)\bseed-style\b"#,
    ]

    @Test func noSourceTestOrDocumentNamesAGuidanceFile() throws {
        let root = Fixtures.repositoryRoot
        let this = "Tests/BLELintTests/RuleReferencesTests.swift"
        let kinds: Set<String> = ["swift", "md", "py", "sh", "js", "css", "txt", "yml", "yaml", "json"]
        let patterns = try Self.guidanceFileNames.map { try Regex($0) }
        var checked = 0
        for top in ["Sources", "Tests", "docs", "scripts", "Fuzz", "Plugins", "README.md", "Makefile"] {
            let url = root.appendingPathComponent(top)
            var files: [URL] = []
            if let e = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil) {
                files = e.compactMap { $0 as? URL }.filter { kinds.contains($0.pathExtension) }
            }
            if files.isEmpty { files = [url] }
            for file in files {
                let relative = String(file.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
                guard relative != this, let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
                checked += 1
                // Swift's Regex is slow on long files: only those that could match are searched.
                guard text.contains(".txt") || text.localizedCaseInsensitiveContains("seed") else { continue }
                for pattern in patterns {
                    if let m = text.firstMatch(of: pattern) {
                        Issue.record("\(relative): \(text[m.range])")
                    }
                }
            }
        }
        // The walk found the sources, tests and docs, so an empty result means something.
        #expect(checked > 400)
    }

    @Test func everyRuleNamesCoreBluetoothAndAndroidAPIs() {
        for d in RuleRegistry.descriptors {
            let sources = Set(d.references.map(\.source))
            #expect(sources.contains(.coreBluetooth), "\(d.id) names no Core Bluetooth API")
            // Every rule has Android advice; its references name the Android APIs too.
            #expect(d.android == nil || sources.contains(.android), "\(d.id) names no Android API")
            for r in d.references {
                switch r.source {
                case .coreBluetooth: #expect(r.name.hasPrefix("CB"), "\(d.id): \(r.name)")
                case .android:
                    #expect(r.name.first?.isUppercase == true && !r.name.hasPrefix("CB"), "\(d.id): \(r.name)")
                case .coreSpec: #expect(r.name.hasPrefix("Vol ") && !r.topic.isEmpty, "\(d.id): \(r.name)")
                }
            }
            // References come grouped: Core Bluetooth's, then Android's, then the specification's.
            let order = d.references.map { DocReference.Source.allCases.firstIndex(of: $0.source)! }
            #expect(order == order.sorted(), "\(d.id) references out of order")
        }
    }

    @Test func aPlatformsPageListsItsOwnAPIsAndTheSpecification() throws {
        let d = OversizedWrite.descriptor
        let android = RuleDocs.markdown(d, platform: .android)
        let apple = RuleDocs.markdown(d, platform: .apple)
        let whole = RuleDocs.markdown(d)
        #expect(android.contains("Android: `BluetoothGatt.requestMtu(int)`"))
        #expect(!android.contains("Core Bluetooth: `CBPeripheral.maximumWriteValueLength(for:)`"))
        #expect(apple.contains("Core Bluetooth: `CBPeripheral.maximumWriteValueLength(for:)`"))
        #expect(!apple.contains("Android: `BluetoothGatt.requestMtu(int)`"))
        for page in [android, apple, whole] { #expect(page.contains("Bluetooth Core Specification: Vol 3 Part F")) }
        #expect(whole.contains("Android: `BluetoothGatt.requestMtu(int)`"))
        #expect(whole.contains("Core Bluetooth: `CBPeripheral.maximumWriteValueLength(for:)`"))
    }
}

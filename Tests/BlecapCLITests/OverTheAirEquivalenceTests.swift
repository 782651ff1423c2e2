import Foundation
import TestSupport
import Testing

/// Issue 12's acceptance: a Bumble session converted to its over-the-air form
/// (`scripts/corpus/make_link_layer.py`, `captures/linklayer/`) gives the same `gatt` tree, the
/// same GATT events and the same findings of the ATT-level lint rules as its HCI original.
///
/// Central-side sessions only: over the air there is no "this host", and blecap reads a sniffer
/// capture from the central's side, so a peripheral's HCI log (its host is the server) and the
/// air between the same two devices are told from different sides by design. The encrypted
/// variant tells the same story with the LTK its HCI original gave the controller (`--ltk`).
@Suite struct OverTheAirEquivalenceTests {
    static let attRules: Set<String> = ["BLE002", "BLE003", "BLE007", "BLE008", "BLE009", "BLE012", "BLE015"]

    static var files: [String] {
        Fixtures.captures(in: "linklayer").filter {
            let name = URL(fileURLWithPath: $0).lastPathComponent
            return name.contains(".central.") && !name.contains("encrypted")
        }
    }

    /// The HCI capture a converted file came from (`NAME.central[.variant].TAG.ext` → bumble/NAME.central.btsnoop).
    static func original(of path: String) throws -> String {
        let parts = URL(fileURLWithPath: path).lastPathComponent.split(separator: ".")
        return try Fixtures.existing("bumble/\(parts[0]).\(parts[1]).btsnoop")
    }

    /// The GATT tree without the per-connection header lines (frames and handles differ by nature)
    /// and without the number of the connection a database was carried over from: over the air
    /// the connections of one peer can overlap where the HCI log ends one before the next
    /// completes (reconnect_storm: the old link's LL_TERMINATE_IND follows the new CONNECT_IND),
    /// so the last one that had ended when the next began can differ.
    static func gatt(_ path: String, _ options: [String] = []) throws -> [Substring] {
        let run = try CLIRunner.run(["gatt"] + options + [path])
        #expect(run.status == 0, "\(path): \(run.stderr)")
        return run.lines.filter { !$0.hasPrefix("Connection #") }.map { line in
            guard let r = line.range(of: "(carried over from connection #") else { return line }
            return line[..<r.lowerBound] + "(carried over)"
        }
    }

    /// GATT events per connection, in order, without frames and times.
    static func events(_ path: String, _ options: [String] = []) throws -> [Int: [String]] {
        let run = try CLIRunner.run(["timeline", "--format", "jsonl", "--type", "gatt.*"] + options + [path])
        #expect(run.status == 0, "\(path): \(run.stderr)")
        var out: [Int: [String]] = [:]
        for e in try CLIRunner.jsonLines(run.stdout) {
            let key = ["type", "direction", "handle", "name", "value", "outcome", "error"].map { "\(e[$0] ?? "-")" }
            out[e["connection"] as? Int ?? 0, default: []].append(key.joined(separator: "|"))
        }
        return out
    }

    static func attFindings(_ path: String, _ options: [String] = []) throws -> [String] {
        let run = try CLIRunner.run(["lint", "--format", "json", "--fail-on", "never"] + options + [path])
        let doc = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as! [String: Any]
        let findings = (doc["captures"] as! [[String: Any]])[0]["findings"] as! [[String: Any]]
        return findings.map { $0["rule"] as! String }.filter { attRules.contains($0) }.sorted()
    }

    @Test(arguments: files)
    func overTheAirFormTellsTheSameGATTStory(_ path: String) throws {
        let hci = try Self.original(of: path)
        #expect(try Self.gatt(path) == Self.gatt(hci))
        #expect(try Self.events(path) == Self.events(hci))
        #expect(try Self.attFindings(path) == Self.attFindings(hci))
    }

    /// The LE Secure Connections session written as ciphertext (`--encrypt`: AES-CCM by the
    /// generator's own Python implementation). Its HCI original hands the controller the LTK in
    /// LE Enable Encryption (frame 121; tshark's bthci_cmd.long_term_key, octets as sent,
    /// 873e707c…8ffebb): with that key the air tells the HCI story, the read that needed
    /// encryption included; without it, that read is not there.
    @Test func theEncryptedFormTellsItWithTheLTK() throws {
        let path = try Fixtures.existing("linklayer/indications_and_errors.central.encrypted.lell256.pcap")
        let hci = try Self.original(of: path)
        let ltk = ["--ltk", "bbfe8f94cefa1b6b92c42fc77c703e87"]
        #expect(try Self.gatt(path, ltk) == Self.gatt(hci))
        #expect(try Self.events(path, ltk) == Self.events(hci))
        #expect(try Self.attFindings(path, ltk) == Self.attFindings(hci))
        let withoutKey = try Self.events(path)[1]?.count ?? 0
        let all = try Self.events(hci)[1]?.count ?? 0
        #expect(withoutKey < all)
    }

    @Test func everyCentralSessionHasAnOverTheAirForm() {
        // 10 central sessions in captures/bumble, each converted at least once.
        let originals = Set(Self.files.compactMap { try? Self.original(of: $0) })
        #expect(originals.count == 10)
    }
}

import Foundation
import TestSupport

/// One labelled verdict of an expected-verdicts file in captures/ (`diagnose-air-expected.json`,
/// `diagnose-bumble-expected.json`): the signature and signals, and where given the frame that
/// ended the link and the frames the verdict must cite.
struct DiagnoseLabel: Decodable {
    var signature: String
    var signals: [String]
    var endFrame: Int?
    var keyFrames: [Int]?
    enum CodingKeys: String, CodingKey {
        case signature, signals
        case endFrame = "end_frame"
        case keyFrames = "key_frames"
    }
}

/// An expected-verdicts file: per capture (its path under captures/), the verdicts in order.
struct DiagnoseLabels: Decodable {
    var version: Int
    var captures: [String: [DiagnoseLabel]]

    /// The file `name` of captures/, nil when it cannot be read or decoded.
    static func load(_ name: String) -> DiagnoseLabels? {
        guard let data = try? Fixtures.bytes(name) else { return nil }
        return try? JSONDecoder().decode(DiagnoseLabels.self, from: Data(data))
    }

    /// The labelled captures, sorted; a placeholder naming the file when it is unreadable, so
    /// a parameterised test fails instead of running no case.
    static func captures(_ labels: DiagnoseLabels?, file name: String) -> [String] {
        labels?.captures.keys.sorted() ?? ["<captures/\(name) unreadable>"]
    }
}

/// The event types a timeline can hold (docs/timeline.md), for `--type`'s check and its
/// suggestion of the nearest one.
package enum EventTypes {
    package static let all = [
        "controller.reset", "controller.init_complete", "controller.power", "controller.index_added",
        "controller.index_removed", "controller.index_opened", "controller.index_closed", "mgmt.set_powered",
        "mgmt.settings", "mgmt.discovery_start", "mgmt.discovery_stop", "mgmt.discovering", "scan.start",
        "scan.stop", "scan.filters", "advertisement", "advertising.start", "advertising.stop", "connection.create",
        "connection.cancel",
        "connection.complete", "connection.failed", "connection.update", "connection.parameter_request",
        "connection.parameter_response", "connection.data_length", "connection.phy", "connection.channel_map",
        "connection.encryption", "connection.disconnect", "connection.summary", "ll.control", "ll.encrypted",
        "ll.decryption", "gatt.mtu", "gatt.discover.services", "gatt.discover.includes",
        "gatt.discover.characteristics", "gatt.discover.descriptors", "gatt.read", "gatt.write", "gatt.subscribe",
        "gatt.unsubscribe", "gatt.notification", "gatt.indication", "gatt.unmatched_response",
        "smp.pairing_request", "smp.pairing_response", "smp.pairing_failed", "smp.security_request",
        "smp.identity_address", "smp.key", "annotation",
    ]

    /// Why `pattern` can match no event ("gatt.writes: no such event type; did you mean
    /// gatt.write?"), or nil when some type matches it.
    package static func check(_ pattern: String) -> String? {
        let p = Array(pattern.utf8)
        if all.contains(where: { Glob.matches(p, Array($0.utf8)) }) { return nil }
        let isGlob = pattern.contains("*") || pattern.contains("?")
        var suggestion: String?
        let lower = pattern.lowercased()
        if lower != pattern, all.contains(where: { Glob.matches(Array(lower.utf8), Array($0.utf8)) }) {
            suggestion = lower
        } else if !isGlob {
            suggestion = all.min { Levenshtein.distance($0, pattern) < Levenshtein.distance($1, pattern) }
                .flatMap { Levenshtein.distance($0, pattern) <= max(2, pattern.count / 3) ? $0 : nil }
        }
        let what = isGlob ? "matches no event type" : "no such event type"
        return "\(pattern): \(what)"
            + (suggestion.map { "; did you mean \($0)?" } ?? " (blecap timeline --help; docs/timeline.md lists them)")
    }
}

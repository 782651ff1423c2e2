import BLEDiagnose

/// The budget of a verdict (docs/diagnose.md, "Budget") as text lines and as Markdown.
enum BudgetText {
    static func platformText(_ p: Platform) -> String {
        switch p {
        case .android: "advice for Android"
        case .apple: "advice for Core Bluetooth (iOS/macOS)"
        case .linux: "platform Linux: advice for Android and Core Bluetooth"
        case .unknown: "platform unknown: advice for Android and Core Bluetooth"
        }
    }

    static func rate(_ r: Int) -> String { "\(r) B/s" }

    static func parameters(_ p: Budget.Parameters) -> String {
        var t = "interval \(p.intervalUs.map(micros) ?? "unknown")"
        if let l = p.peripheralLatency { t += ", peripheral latency \(l)" }
        t += ", PHY \(p.phy)\(p.phyKnown ? "" : " (assumed)")"
        t += ", data length \(p.dataLength)\(p.dataLengthKnown ? "" : " (assumed)")"
        t += ", MTU \(p.mtu)\(p.mtuKnown ? "" : " (at least)")"
        if p.encrypted { t += ", encrypted" }
        if let a = p.aclBuffers { t += ", \(a) ACL buffers" }
        if let k = p.packetsPerEvent { t += ", at most \(k) per event" }
        return t
    }

    static func micros(_ us: Int) -> String {
        if us % 1000 == 0 { return "\(us / 1000) ms" }
        let h = (us % 1000) / 10
        return "\(us / 1000).\(h < 10 ? "0" : "")\(h) ms"
    }

    static func headline(_ s: Budget.Stretch) -> String {
        var t =
            "\(String(s.kind.map { $0 == "_" ? " " : $0 })) from the \(s.sender), frames \(s.firstFrame)–\(s.lastFrame): \(s.pdus) PDUs, \(s.valueBytes) value bytes (at most \(s.largestValue) in one) in \(micros(s.durationUs)): \(rate(s.bytesPerSecond))"
        if let c = s.ceilingBytesPerSecond {
            t += " of a \(rate(c)) ceiling (\(c > 0 ? s.bytesPerSecond * 100 / c : 0) %)"
        }
        return t
    }

    static func advice(_ a: Budget.Advice) -> [String] {
        var out = ["raise it with `\(a.setting)` (ceiling \(rate(a.ceilingBytesPerSecond)))"]
        if let t = a.android { out.append("Android: \(t)") }
        if let t = a.coreBluetooth { out.append("Core Bluetooth: \(t)") }
        return out
    }

    static func latency(_ l: Budget.Latency) -> String {
        "\(l.operation) (asked by the \(l.requester)) ×\(l.count): median \(micros(l.medianUs)), p95 \(micros(l.p95Us)), max \(micros(l.maxUs)) (frame \(l.maxFrame)): \(l.slowest)"
    }

    static func lines(_ b: Budget) -> [String] {
        var out = ["budget (\(platformText(b.platform))):"]
        for s in b.stretches {
            out.append("  " + headline(s))
            out.append("    parameters: " + parameters(s.parameters))
            out.append("    limit: \(s.limit): \(s.limitText)")
            if let a = s.advice { out += advice(a).map { "    " + $0 } }
        }
        if let n = b.stretchesOmitted { out.append("  \(n) more busy stretches not shown") }
        for l in b.latency { out.append("  latency: " + latency(l)) }
        return out
    }

    static func cell(_ t: String) -> String { String(t.flatMap { $0 == "|" ? ["\\", "|"] : [$0] }) }

    static func markdown(_ b: Budget) -> [String] {
        var out = ["Budget (\(platformText(b.platform))):", ""]
        if !b.stretches.isEmpty {
            out.append("| busy stretch | parameters | achieved | ceiling | limit | raise it |")
            out.append("|---|---|---|---|---|---|")
            for s in b.stretches {
                let a = s.advice.map { advice($0).joined(separator: "; ") } ?? "–"
                out.append(
                    "| \(cell(s.kind)) from the \(s.sender), frames \(s.firstFrame)–\(s.lastFrame), \(s.pdus) PDUs, \(s.valueBytes) B | \(cell(parameters(s.parameters))) | \(rate(s.bytesPerSecond)) | \(s.ceilingBytesPerSecond.map(rate) ?? "unknown") | \(s.limit): \(cell(s.limitText)) | \(cell(a)) |"
                )
            }
            if let n = b.stretchesOmitted { out.append("\n\(n) more busy stretches not shown.") }
            out.append("")
        }
        if !b.latency.isEmpty {
            out.append("| request | asked by | count | median | p95 | max (frame) | slowest |")
            out.append("|---|---|---|---|---|---|---|")
            for l in b.latency {
                out.append(
                    "| \(l.operation) | \(l.requester) | \(l.count) | \(micros(l.medianUs)) | \(micros(l.p95Us)) | \(micros(l.maxUs)) (\(l.maxFrame)) | \(cell(l.slowest)) |"
                )
            }
        }
        if out.last == "" { out.removeLast() }
        return out
    }
}

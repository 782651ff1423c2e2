extension Describe {
    /// "0.49 ms", "18 ms", "1.7 s": durations from microseconds, precise enough for the
    /// sub-millisecond gaps of connection handling and still short for long ones.
    static func duration(_ us: Int64) -> String {
        let sign = us < 0 ? "-" : ""
        let a = abs(us)
        if a < 10_000 {
            let hundredths = (a + 5) / 10
            let frac = hundredths % 100
            return "\(sign)\(hundredths / 100).\(frac < 10 ? "0" : "")\(frac) ms"
        }
        if a < 1_000_000 { return "\(sign)\((a + 500) / 1000) ms" }
        return sign + seconds(a)
    }
}

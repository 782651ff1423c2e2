import BLEOutput

// Types the BLEOutput product hands out, named with its import alone: a capture's timeline as
// `blecap timeline --format jsonl` writes it.
public func timelineJSONL(_ events: [TimelineEvent], summaries: [ConnectionSummary]) -> [UInt8] {
    let out = OutputBuffer(fd: nil)
    let writer = TimelineWriter(out: out, jsonl: true)
    writer.base = events.first?.time
    var lines = SummaryLines()
    for e in events { writer.write(e) }
    for s in summaries { lines.add(s) }
    if let last = events.last { lines.write(to: writer, frame: last.frame, time: last.time) }
    return out.bytes
}

import BLEFleet

// Types the BLEFleet product hands out, named with its import alone.
public func uses(_ paths: [String], key: [UInt8]) -> ExitClass {
    let policy: IdentifierPolicy = Pseudonymizer(key: key).map { .keyed($0) } ?? .dropped
    let options = AnalysisOptions(command: .diagnose, configuration: LintConfiguration(), baseline: Baseline())
    let format = FleetFormat(options: options, identifiers: policy)
    let runner = BatchRunner(format: format, limits: BatchLimits(), write: { _ in }, note: { _ in })
    return runner.run(BatchInputs(paths: paths, listFD: nil))
}

public func analysis(_ member: CaptureMember, _ bundle: CaptureBundle) -> (CaptureReport, [Verdict]?, DeviceMetadata) {
    let a = CaptureAnalysis.run(member, in: bundle, options: AnalysisOptions(command: .lint))
    return (a.report, a.verdicts, bundle.metadata)
}

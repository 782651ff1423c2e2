// What BLEFleet's public API names from the modules below it (archives and their members, the
// lint configuration and report, verdicts), re-exported so that a client depending on the
// BLEFleet product alone can name every type it is handed (scripts/check_products.py).
@_exported import BLEDiagnose
@_exported import BLELint
@_exported import CaptureArchive

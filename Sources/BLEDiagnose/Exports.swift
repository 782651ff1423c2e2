// What BLEDiagnose's public API names from the modules below it (TimelineEvent,
// ConnectionSummary, the CapturePass it runs on), re-exported so that a client depending on the
// BLEDiagnose product alone can name every type it is handed (scripts/check_products.py checks
// this for every product).
@_exported import BLEPass
@_exported import BLETimeline

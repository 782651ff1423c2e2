// What BLEPass's public API names from the modules below it (records, frames, events,
// connection summaries), re-exported so that a client depending on the BLEPass product alone
// can name every type it is handed (scripts/check_products.py checks this for every product).
@_exported import BLETimeline

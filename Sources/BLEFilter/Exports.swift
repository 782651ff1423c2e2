// What BLEFilter's public API names from the modules below it (the timeline events and decoded
// frames a filter reads, addresses and UUIDs as values), re-exported so that a client depending
// on the BLEFilter product alone can name every type it is handed (scripts/check_products.py).
@_exported import BLETimeline

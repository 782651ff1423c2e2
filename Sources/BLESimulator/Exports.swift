// What BLESimulator's public API names from the modules below it, re-exported so that a client
// depending on the BLESimulator product alone can name every type it is handed
// (scripts/check_products.py checks this for every product).
@_exported import BLEReplay
@_exported import BLETimeline

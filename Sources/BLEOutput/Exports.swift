// What BLEOutput's public API names from the modules below it (timeline events, connection
// summaries, the scan filter tables, byte views and addresses), re-exported so that a client
// depending on the BLEOutput product alone can name every type it is handed
// (scripts/check_products.py checks this for every product).
@_exported import BLEPass

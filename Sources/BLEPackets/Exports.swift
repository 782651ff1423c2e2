// What BLEPackets' public API names from the modules below it, re-exported so that a client
// depending on the BLEPackets product alone can name every type it is handed
// (scripts/check_products.py checks this for every product): addresses and byte views
// (BLEBytes), the records frames are decoded from (CaptureIO), the code constants (ATT opcodes,
// HCI codes, L2CAP channels; BLECodes sits one module lower so the capture readers can use them
// too) and link-layer decryption and legacy-pairing key recovery (BLECrypto).
@_exported import BLEBytes
@_exported import BLECodes
@_exported import BLECrypto
@_exported import CaptureIO

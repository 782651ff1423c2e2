// The shared code constants (ATT opcodes, HCI codes, L2CAP channels) sit one module lower, in
// BLECodes, so the capture readers can use them too; everyone who imports BLEPackets sees them.
@_exported import BLECodes

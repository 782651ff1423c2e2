// The shared code constants (ATT opcodes, HCI codes, L2CAP channels) sit one module lower, in
// BLECodes, so the capture readers can use them too; everyone who imports BLEPackets sees them.
@_exported import BLECodes
// Link-layer decryption and legacy-pairing key recovery (BLECrypto) belong to the same
// vocabulary as the link-layer decoders.
@_exported import BLECrypto

"""The SMP commands (Core 5.4 Vol 3 Part H 3.3, Table 3.1): one row per command code.

scripts/pdu/generate.py writes every Swift fact that follows from a row: the SMPCode constant
(BLECodes), the command type's `code`, the SMPPDU case and its decode, and the code table row
(name, exact parameter size, describer) (BLEPackets). The command type itself (its fields,
`init?(parameters:)`, `describe(into:)`, an encoder where blecap sends it) is written by hand in
Sources/BLEPackets/SMP/.

Each row is `PDU(code, name, section, case, type, length, note=)`:
  code     the command code (codes run from 0x01 without a gap: the table is indexed by code)
  name     the Core 5.4 name, which blecap prints
  section  its section in Vol 3 Part H
  case     the Swift name: the SMPCode constant and the SMPPDU case
  type     the hand-written command type in Sources/BLEPackets/SMP/
  length   the exact size of its parameters (every SMP command has a fixed size)
  note     what the constant's doc adds to the section
"""

from collections import namedtuple

PDU = namedtuple("PDU", "code name section case type length note", defaults=(None,))

SMP_PDUS = [
    PDU(0x01, "Pairing Request", "3.5.1", "pairingRequest", "SMPPairingRequest", 6,
        note="sent by the initiator, on LE the central"),
    PDU(0x02, "Pairing Response", "3.5.2", "pairingResponse", "SMPPairingResponse", 6,
        note="sent by the responder, on LE the peripheral"),
    PDU(0x03, "Pairing Confirm", "3.5.3", "pairingConfirm", "SMPPairingConfirm", 16),
    PDU(0x04, "Pairing Random", "3.5.4", "pairingRandom", "SMPPairingRandom", 16),
    PDU(0x05, "Pairing Failed", "3.5.5", "pairingFailed", "SMPPairingFailed", 1),
    PDU(0x06, "Encryption Information", "3.6.2", "encryptionInformation", "SMPEncryptionInformation", 16,
        note="the LTK of LE legacy pairing"),
    PDU(0x07, "Central Identification", "3.6.3", "centralIdentification", "SMPCentralIdentification", 10,
        note="EDIV and Rand, which name that LTK"),
    PDU(0x08, "Identity Information", "3.6.4", "identityInformation", "SMPIdentityInformation", 16),
    PDU(0x09, "Identity Address Information", "3.6.5", "identityAddressInformation",
        "SMPIdentityAddressInformation", 7),
    PDU(0x0A, "Signing Information", "3.6.6", "signingInformation", "SMPSigningInformation", 16),
    PDU(0x0B, "Security Request", "3.6.7", "securityRequest", "SMPSecurityRequest", 1,
        note="sent by the peripheral"),
    PDU(0x0C, "Pairing Public Key", "3.5.6", "pairingPublicKey", "SMPPairingPublicKey", 64,
        note="LE Secure Connections only"),
    PDU(0x0D, "Pairing DHKey Check", "3.5.7", "pairingDHKeyCheck", "SMPPairingDHKeyCheck", 16,
        note="LE Secure Connections only"),
    PDU(0x0E, "Pairing Keypress Notification", "3.5.8", "pairingKeypressNotification",
        "SMPPairingKeypressNotification", 1),
]

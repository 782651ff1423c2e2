"""The SMP commands (Core 5.4 Vol 3 Part H 3.3, Table 3.1): one row per command code.

scripts/pdu/generate.py writes every Swift fact that follows from a row: the SMPCode constant
(BLECodes); the command type (its stored fields, memberwise init, `init?(parameters:)`,
`appendParameters(to:)` and `describe(into:)`), its `code`, the SMPPDU case and its decode, and
the code table row (name, exact parameter size, describer) (BLEPackets). What a type adds beyond
its fields (its value as a number, a PDU built from numbers, the names of a code's values) stays
hand-written in an extension in Sources/BLEPackets/SMP/.

Each row is `PDU(code, name, section, case, type, fields, note=, doc=)`:
  code     the command code (codes run from 0x01 without a gap: the table is indexed by code)
  name     the Core 5.4 name, which blecap prints
  section  its section in Vol 3 Part H
  case     the Swift name: the SMPCode constant and the SMPPDU case
  type     the command's Swift type
  fields   its parameters in wire order, `F(spec_name, swift_name, kind)`: spec_name is the name
           `packets` prints; kind one of smp_generate.KINDS (`code8(names)` names its values
           with the Swift function `names`, `Self.` its own type), or `Group(swift_type, fields)`: fields kept in a
           struct of their own that rows naming the same type share (Pairing Request and
           Response's features)
  note     what the constant's doc adds to the section
  doc      the type's doc comment
Every SMP command has a fixed size: the sum of its fields'.
"""

from collections import namedtuple

PDU = namedtuple("PDU", "code name section case type fields note doc", defaults=(None, None))
Field = namedtuple("Field", "spec swift kind doc", defaults=(None,))
Group = namedtuple("Group", "type fields doc", defaults=(None,))


def F(spec, swift, kind, doc=None):
    return Field(spec, swift, kind, doc)


KEY_DISTRIBUTION = "flags8(SMPKeyDistribution)"

FEATURES = Group("SMPPairingFeatures", [
    F("io_capability", "ioCapability", "code8(SMPIOCapability.name)"),
    F("oob_data_flag", "oobDataFlag", "code8(Self.oobDataFlagName)",
      doc="OOB data flag: 0x00 not present, 0x01 present."),
    F("auth_req", "authReq", "authReq"),
    F("max_encryption_key_size", "maximumEncryptionKeySize", "keySize", doc="7…16 octets."),
    F("initiator_key_distribution", "initiatorKeyDistribution", KEY_DISTRIBUTION),
    F("responder_key_distribution", "responderKeyDistribution", KEY_DISTRIBUTION),
], doc="The six feature-exchange fields shared by Pairing Request and Pairing Response (Vol 3 Part\n"
       "H 3.5.1 and 3.5.2).")

SMP_PDUS = [
    PDU(0x01, "Pairing Request", "3.5.1", "pairingRequest", "SMPPairingRequest", [F("features", "features", FEATURES)],
        note="sent by the initiator, on LE the central",
        doc="Pairing Request (Vol 3 Part H 3.5.1), sent by the initiator (central)."),
    PDU(0x02, "Pairing Response", "3.5.2", "pairingResponse", "SMPPairingResponse",
        [F("features", "features", FEATURES)],
        note="sent by the responder, on LE the peripheral",
        doc="Pairing Response (Vol 3 Part H 3.5.2), the responder's features."),
    PDU(0x03, "Pairing Confirm", "3.5.3", "pairingConfirm", "SMPPairingConfirm",
        [F("confirm_value", "confirmValue", "bytes(16)")],
        doc="Pairing Confirm (Vol 3 Part H 3.5.3): 128-bit Confirm value (Mconfirm/Sconfirm)."),
    PDU(0x04, "Pairing Random", "3.5.4", "pairingRandom", "SMPPairingRandom",
        [F("random_value", "randomValue", "bytes(16)")],
        doc="Pairing Random (Vol 3 Part H 3.5.4): 128-bit Random value (Mrand/Srand, Na/Nb)."),
    PDU(0x05, "Pairing Failed", "3.5.5", "pairingFailed", "SMPPairingFailed",
        [F("reason", "reason", "code8(Self.reasonName)")],
        doc="Pairing Failed (Vol 3 Part H 3.5.5): Reason (Table 3.7)."),
    PDU(0x06, "Encryption Information", "3.6.2", "encryptionInformation", "SMPEncryptionInformation",
        [F("long_term_key", "longTermKey", "key128")],
        note="the LTK of LE legacy pairing",
        doc="Encryption Information (Vol 3 Part H 3.6.2): the 128-bit LTK (legacy pairing)."),
    PDU(0x07, "Central Identification", "3.6.3", "centralIdentification", "SMPCentralIdentification",
        [F("ediv", "ediv", "hex16"), F("rand", "rand", "hex64")],
        note="EDIV and Rand, which name that LTK",
        doc="Central Identification (Vol 3 Part H 3.6.3; \"Master Identification\" before Core 5.3):\n"
            "EDIV (u16) and Rand (u64) that identify the LTK."),
    PDU(0x08, "Identity Information", "3.6.4", "identityInformation", "SMPIdentityInformation",
        [F("identity_resolving_key", "identityResolvingKey", "bytes(16)")],
        doc="Identity Information (Vol 3 Part H 3.6.4): the 128-bit IRK."),
    PDU(0x09, "Identity Address Information", "3.6.5", "identityAddressInformation",
        "SMPIdentityAddressInformation",
        [F("address_type", "addressType", "code8(Self.addressTypeName)"),
         F("address", "address", "address")],
        doc="Identity Address Information (Vol 3 Part H 3.6.5): AddrType (0x00 public, 0x01 random\n"
            "static) and BD_ADDR."),
    PDU(0x0A, "Signing Information", "3.6.6", "signingInformation", "SMPSigningInformation",
        [F("signature_key", "signatureKey", "bytes(16)")],
        doc="Signing Information (Vol 3 Part H 3.6.6): the 128-bit CSRK."),
    PDU(0x0B, "Security Request", "3.6.7", "securityRequest", "SMPSecurityRequest",
        [F("auth_req", "authReq", "authReq")],
        note="sent by the peripheral",
        doc="Security Request (Vol 3 Part H 3.6.7): the peripheral asks the central to start pairing\n"
            "or encryption, with its AuthReq."),
    PDU(0x0C, "Pairing Public Key", "3.5.6", "pairingPublicKey", "SMPPairingPublicKey",
        [F("public_key_x", "x", "bytes(32)"), F("public_key_y", "y", "bytes(32)")],
        note="LE Secure Connections only",
        doc="Pairing Public Key (Vol 3 Part H 3.5.6): P-256 public key X and Y, 32 octets each,\n"
            "least significant first."),
    PDU(0x0D, "Pairing DHKey Check", "3.5.7", "pairingDHKeyCheck", "SMPPairingDHKeyCheck",
        [F("dhkey_check", "check", "bytes(16)")],
        note="LE Secure Connections only",
        doc="Pairing DHKey Check (Vol 3 Part H 3.5.7): 128-bit Ea/Eb."),
    PDU(0x0E, "Pairing Keypress Notification", "3.5.8", "pairingKeypressNotification",
        "SMPPairingKeypressNotification",
        [F("notification_type", "notificationType", "code8(Self.typeName)")],
        doc="Pairing Keypress Notification (Vol 3 Part H 3.5.8): Notification Type (Table 3.8)."),
]

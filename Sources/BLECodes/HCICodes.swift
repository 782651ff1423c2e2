// HCI opcodes, event codes and LE subevent codes that code refers to by name. They live below
// both the capture readers (CaptureIO, whose link type 187 reader infers directions from HCI
// events) and the decoders (BLEPackets, which re-exports this module), so the protocol has one
// vocabulary in both directions.

/// HCI command opcodes blecap decodes specially or produces (Core 5.4 Vol 4 Part E 7: OGF in
/// bits 10–15, OCF in bits 0–9). Every opcode's name is in `HCICommands.table`; the ones code
/// refers to by name are constants in HCIOpcode+Generated.swift, generated from the HCI command
/// table (scripts/pdu/hci_commands.py).
public enum HCIOpcode {}

/// HCI event codes blecap refers to by name (Core 5.4 Vol 4 Part E 7.7; names of all in
/// `HCIEvents`): the constants are in HCIEventCode+Generated.swift, generated from the HCI event
/// table (scripts/pdu/hci_events.py).
public enum HCIEventCode {}

/// LE Meta subevent codes blecap refers to by name (Vol 4 Part E 7.7.65), in
/// HCIEventCode+Generated.swift with the event codes.
public enum HCILESubeventCode {}

"""The ATT PDUs (Core 5.4 Vol 3 Part F 3.4; opcodes in 3.4.8, Table 3.37): one row per opcode.

scripts/pdu/generate.py writes every Swift fact that follows from a row: the ATTOpcode constant
and its direction (BLECodes), the payload type's opcode, the ATTPDU case, its decode and encode,
the opcode table row (name, method, handle offset, fixed length, describer) and the response that
answers a request (BLEPackets). The payload type itself (its fields, `init?(parameters:)`,
`appendParameters(to:)`, `describe(into:)`) is written by hand in Sources/BLEPackets/ATT/.

Each row is `PDU(opcode, pdu, section, name, case, type, method, handle=, fixed=, answer=)`:
  opcode   the opcode byte (bits 0-5 method, bit 6 command flag, bit 7 authentication signature)
  pdu      the spec's PDU name and its section in Vol 3 Part F
  name     the name blecap prints (tshark's `btatt.opcode` name)
  case     the Swift name: the ATTOpcode constant and the ATTPDU case
  type     the hand-written payload type in Sources/BLEPackets/ATT/
  method   request, response, command, notification, indication or confirmation (Vol 3 Part F
           3.3); the direction follows from it: requests, commands and confirmations go client to
           server, the rest server to client
  handle   offset in the PDU (opcode = 0) of the one attribute handle the PDU names, or None
  fixed    exact parameter length of a fixed-size PDU, None when variable
  answer   for a request, the case of the response that answers it
"""

from collections import namedtuple

PDU = namedtuple("PDU", "opcode pdu section name case type method handle fixed answer",
                 defaults=(None, None, None))

ATT_PDUS = [
    PDU(0x01, "ATT_ERROR_RSP", "3.4.1.1", "Error Response",
        "errorResponse", "ATTErrorResponse", "response", handle=2, fixed=4),
    PDU(0x02, "ATT_EXCHANGE_MTU_REQ", "3.4.2.1", "Exchange MTU Request",
        "exchangeMTURequest", "ATTExchangeMTURequest", "request", fixed=2, answer="exchangeMTUResponse"),
    PDU(0x03, "ATT_EXCHANGE_MTU_RSP", "3.4.2.2", "Exchange MTU Response",
        "exchangeMTUResponse", "ATTExchangeMTUResponse", "response", fixed=2),
    PDU(0x04, "ATT_FIND_INFORMATION_REQ", "3.4.3.1", "Find Information Request",
        "findInformationRequest", "ATTFindInformationRequest", "request", fixed=4, answer="findInformationResponse"),
    PDU(0x05, "ATT_FIND_INFORMATION_RSP", "3.4.3.2", "Find Information Response",
        "findInformationResponse", "ATTFindInformationResponse", "response"),
    PDU(0x06, "ATT_FIND_BY_TYPE_VALUE_REQ", "3.4.3.3", "Find By Type Value Request",
        "findByTypeValueRequest", "ATTFindByTypeValueRequest", "request", answer="findByTypeValueResponse"),
    PDU(0x07, "ATT_FIND_BY_TYPE_VALUE_RSP", "3.4.3.4", "Find By Type Value Response",
        "findByTypeValueResponse", "ATTFindByTypeValueResponse", "response"),
    PDU(0x08, "ATT_READ_BY_TYPE_REQ", "3.4.4.1", "Read By Type Request",
        "readByTypeRequest", "ATTReadByTypeRequest", "request", answer="readByTypeResponse"),
    PDU(0x09, "ATT_READ_BY_TYPE_RSP", "3.4.4.2", "Read By Type Response",
        "readByTypeResponse", "ATTReadByTypeResponse", "response"),
    PDU(0x0A, "ATT_READ_REQ", "3.4.4.3", "Read Request",
        "readRequest", "ATTReadRequest", "request", handle=1, fixed=2, answer="readResponse"),
    PDU(0x0B, "ATT_READ_RSP", "3.4.4.4", "Read Response",
        "readResponse", "ATTReadResponse", "response"),
    PDU(0x0C, "ATT_READ_BLOB_REQ", "3.4.4.5", "Read Blob Request",
        "readBlobRequest", "ATTReadBlobRequest", "request", handle=1, fixed=4, answer="readBlobResponse"),
    PDU(0x0D, "ATT_READ_BLOB_RSP", "3.4.4.6", "Read Blob Response",
        "readBlobResponse", "ATTReadBlobResponse", "response"),
    PDU(0x0E, "ATT_READ_MULTIPLE_REQ", "3.4.4.7", "Read Multiple Request",
        "readMultipleRequest", "ATTReadMultipleRequest", "request", answer="readMultipleResponse"),
    PDU(0x0F, "ATT_READ_MULTIPLE_RSP", "3.4.4.8", "Read Multiple Response",
        "readMultipleResponse", "ATTReadMultipleResponse", "response"),
    PDU(0x10, "ATT_READ_BY_GROUP_TYPE_REQ", "3.4.4.9", "Read By Group Type Request",
        "readByGroupTypeRequest", "ATTReadByGroupTypeRequest", "request", answer="readByGroupTypeResponse"),
    PDU(0x11, "ATT_READ_BY_GROUP_TYPE_RSP", "3.4.4.10", "Read By Group Type Response",
        "readByGroupTypeResponse", "ATTReadByGroupTypeResponse", "response"),
    PDU(0x12, "ATT_WRITE_REQ", "3.4.5.1", "Write Request",
        "writeRequest", "ATTWriteRequest", "request", handle=1, answer="writeResponse"),
    PDU(0x13, "ATT_WRITE_RSP", "3.4.5.2", "Write Response",
        "writeResponse", "ATTWriteResponse", "response", fixed=0),
    PDU(0x16, "ATT_PREPARE_WRITE_REQ", "3.4.6.1", "Prepare Write Request",
        "prepareWriteRequest", "ATTPrepareWriteRequest", "request", handle=1, answer="prepareWriteResponse"),
    PDU(0x17, "ATT_PREPARE_WRITE_RSP", "3.4.6.2", "Prepare Write Response",
        "prepareWriteResponse", "ATTPrepareWriteResponse", "response", handle=1),
    PDU(0x18, "ATT_EXECUTE_WRITE_REQ", "3.4.6.3", "Execute Write Request",
        "executeWriteRequest", "ATTExecuteWriteRequest", "request", fixed=1, answer="executeWriteResponse"),
    PDU(0x19, "ATT_EXECUTE_WRITE_RSP", "3.4.6.4", "Execute Write Response",
        "executeWriteResponse", "ATTExecuteWriteResponse", "response", fixed=0),
    PDU(0x1B, "ATT_HANDLE_VALUE_NTF", "3.4.7.1", "Handle Value Notification",
        "handleValueNotification", "ATTHandleValueNotification", "notification", handle=1),
    PDU(0x1D, "ATT_HANDLE_VALUE_IND", "3.4.7.2", "Handle Value Indication",
        "handleValueIndication", "ATTHandleValueIndication", "indication", handle=1),
    PDU(0x1E, "ATT_HANDLE_VALUE_CFM", "3.4.7.3", "Handle Value Confirmation",
        "handleValueConfirmation", "ATTHandleValueConfirmation", "confirmation", fixed=0),
    PDU(0x20, "ATT_READ_MULTIPLE_VARIABLE_REQ", "3.4.4.11", "Read Multiple Variable Request",
        "readMultipleVariableRequest", "ATTReadMultipleVariableRequest", "request", answer="readMultipleVariableResponse"),
    PDU(0x21, "ATT_READ_MULTIPLE_VARIABLE_RSP", "3.4.4.12", "Read Multiple Variable Response",
        "readMultipleVariableResponse", "ATTReadMultipleVariableResponse", "response"),
    PDU(0x23, "ATT_MULTIPLE_HANDLE_VALUE_NTF", "3.4.7.4", "Multiple Handle Value Notification",
        "multipleHandleValueNotification", "ATTMultipleHandleValueNotification", "notification"),
    PDU(0x52, "ATT_WRITE_CMD", "3.4.5.3", "Write Command",
        "writeCommand", "ATTWriteCommand", "command", handle=1),
    PDU(0xD2, "ATT_SIGNED_WRITE_CMD", "3.4.5.4", "Signed Write Command",
        "signedWriteCommand", "ATTSignedWriteCommand", "command", handle=1),
]

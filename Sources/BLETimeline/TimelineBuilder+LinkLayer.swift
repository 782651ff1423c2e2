import BLEBytes
import BLEPackets
import CaptureIO

/// Over-the-air captures: connections from CONNECT_IND (or the first data PDU on an unknown
/// access address), L2CAP from the Link Layer's reassembly, LL Control procedures as facts.
extension TimelineBuilder {
    func linkLayer(_ ll: LinkLayerFrame, _ frame: DecodedFrame) {
        if let pdu = frame.l2cap { l2cap(pdu, frame.record) }
    }
}

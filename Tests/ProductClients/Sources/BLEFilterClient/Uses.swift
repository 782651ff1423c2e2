import BLEFilter

// Types the BLEFilter product hands out, named with its import alone.
public func keeps(_ event: TimelineEvent, _ frame: DecodedFrame) throws(FilterError) -> (Bool, Bool) {
    let onEvents = try Filter("type ~ \"gatt.*\" && conn == 1", fields: EventField.table)
    let onFrames = try Filter("att.opcode == 0x1b", fields: PacketField.table)
    let peer: BDAddr? = event.peer
    return (onEvents.matches(EventSubject(event)) && peer != nil, onFrames.matches(PacketSubject(frame)))
}

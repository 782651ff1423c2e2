/// What a simulated link asks of a GATT server that an app runs (`CBPeripheralManager`)
/// instead of answering from `SimulatedCharacteristic` definitions. The link checks
/// properties and permissions first, as Core Bluetooth does before it involves the app.
///
/// Each answer is called at most once; the link sends the response at the operation latency
/// or when the answer comes, whichever is later.
protocol LocalGATTServer: AnyObject {
    /// A Read Request for `characteristic`'s value: `answer(error, value)`.
    func read(
        _ characteristic: GATTServerDatabase.Characteristic, from link: SimulatedLink,
        answer: @escaping (UInt8?, [UInt8]?) -> Void)
    /// A Write Request (one part), an Execute Write (the prepared parts, in order) or a Write
    /// Command (`answer` nil: nothing goes back).
    func write(
        _ characteristic: GATTServerDatabase.Characteristic, parts: [(offset: Int, value: [UInt8])],
        from link: SimulatedLink, answer: ((UInt8?) -> Void)?)
    /// The client wrote the characteristic's CCCD (Vol 3 Part G 3.3.3.3).
    func configurationChanged(
        _ characteristic: GATTServerDatabase.Characteristic, from old: UInt16, to new: UInt16,
        link: SimulatedLink)
    /// The connection ended.
    func linkClosed(_ link: SimulatedLink)
}

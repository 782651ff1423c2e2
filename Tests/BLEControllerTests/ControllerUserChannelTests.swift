import Testing

@testable import BLEController

#if canImport(Glibc)
    import Glibc
#endif

/// `hciN`: what each refusal of the kernel's HCI user channel bind (Linux's hci_sock_bind)
/// tells the user. No kernel here has Bluetooth sockets; the kernel check's virtual machine
/// (scripts/kernel/guest_radio.sh) meets the real ones.
@Suite struct ControllerUserChannelTests {
    /// The adapter is up under the kernel: take it down, with the commands that do. The same
    /// errno comes when another program holds the user channel (it keeps the adapter up).
    @Test func busyTellsHowToTakeTheAdapterDown() throws {
        let busy = try #require(ControllerSpec.userChannelRefusal(EBUSY, index: 0)).description
        #expect(busy.hasPrefix("hci0 is up under BlueZ: take it down"))
        #expect(busy.contains("sudo btmgmt --index 0 power off"))
        #expect(busy.hasSuffix("another program holds it through the HCI user channel (only one may at a time)"))
    }

    /// Another program holds the user channel already (a second blecap on the same adapter):
    /// said as such, not as strerror's "Too many users".
    @Test func anotherHolderIsNamedAsSuch() throws {
        let held = try #require(ControllerSpec.userChannelRefusal(EUSERS, index: 1)).description
        #expect(held.hasPrefix("hci1 is already held through the HCI user channel by another program"))
    }

    @Test func otherErrnosAreLeftToStrerror() {
        #expect(ControllerSpec.userChannelRefusal(ENODEV, index: 2)?.description.contains("no such adapter") == true)
        #expect(ControllerSpec.userChannelRefusal(EIO, index: 0) == nil)
    }
}

import BLESimulator
import Foundation

// Deliberately wrong centrals: each takes a right one and makes ONE mistake a rule of
// docs/rules reports, the way it shows up in real apps. ExamplesTests asserts which rule ids
// the linter reports for each, and that the right centrals get none.

/// scan-before-powered-on: a wrong snippet often seen, a scan for nil services
/// straight after creating the manager. Core Bluetooth ignores it with "API MISUSE"; the app
/// then works only because `centralManagerDidUpdateState` scans again. Two mistakes in one
/// line: before poweredOn, and for every peripheral.
final class ScansBeforePoweredOn: HeartRateCentral {
    override init() {
        super.init()
        centralManager.scanForPeripherals(withServices: nil)  // may silently fail
    }
}

/// unfiltered-scan: discovers every advertiser in range.
final class ScansForNilServices: HeartRateCentral {
    override func startScanning() {
        centralManager.scanForPeripherals(withServices: nil)
    }
}

/// scan-left-running: connects with
/// the scan still running.
final class LeavesScanRunning: HeartRateCentral {
    override func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
        advertisementData: [String: Any], rssi RSSI: NSNumber
    ) {
        guard RSSI.intValue > -70 else { return }
        discoveredPeripheral = peripheral
        centralManager.connect(peripheral, options: nil)
    }
}

/// peripheral-not-retained: connects to the peripheral `didDiscover` handed over
/// without keeping it. The object is released when the callback returns and the connection
/// attempt dies with it, silently.
final class DoesNotRetainPeripheral: HeartRateCentral {
    override func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
        advertisementData: [String: Any], rssi RSSI: NSNumber
    ) {
        guard RSSI.intValue > -70 else { return }
        centralManager.stopScan()
        central.connect(peripheral)  // peripheral may be deallocated
    }
}

/// gatt-before-connected: discovers right after `connect`, before
/// `didConnect`, and so never (Core Bluetooth refuses the call with "API MISUSE").
final class DiscoversBeforeConnected: HeartRateCentral {
    override func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
        advertisementData: [String: Any], rssi RSSI: NSNumber
    ) {
        guard RSSI.intValue > -70 else { return }
        discoveredPeripheral = peripheral
        centralManager.stopScan()
        centralManager.connect(peripheral, options: nil)
        peripheral.delegate = self
        peripheral.discoverServices([heartRateServiceUUID])  // peripheral not connected yet
    }

    override func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {}
}

/// unchecked-write: resets Energy Expended (Heart
/// Rate Control Point value 0x01) with `.withoutResponse`, which the Control Point does not
/// allow (it has Write only). Core Bluetooth drops the write with a console warning.
final class WritesWithoutCheckingProperties: HeartRateCentral {
    override func peripheral(
        _ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService,
        error: (any Error)?
    ) {
        super.peripheral(peripheral, didDiscoverCharacteristicsFor: service, error: error)
        for characteristic in service.characteristics ?? [] where characteristic.uuid == heartRateControlPointUUID {
            peripheral.writeValue(Data([0x01]), for: characteristic, type: .withoutResponse)
        }
    }
}

/// Write payloads stay within `maximumWriteValueLength(for:)` (docs/rules/oversized-write.md):
/// the article's state written as a JSON document (it says the state can be any data, even an
/// encoded JSON object) that is longer than the 512 bytes an attribute
/// value can hold.
final class WritesWithoutCheckingLength: TemperatureCentral {
    override func setState(_ state: Bool) {
        guard let discoveredPeripheral, let discoveredStateCharacteristic else { return }
        let log = (0..<60).map { "\"t\($0)\":\(20 + $0 % 5)" }.joined(separator: ",")
        let json = "{\"on\":\(state),\"history\":{\(log)}}"
        discoveredPeripheral.writeValue(Data(json.utf8), for: discoveredStateCharacteristic, type: .withResponse)
    }
}

/// write-without-response-flow: streams state
/// changes as fast as the loop runs. Once the controller's buffers are full, Core Bluetooth
/// drops the rest.
final class FloodsWithoutResponse: TemperatureCentral {
    func stream(_ values: [Data]) {
        guard let discoveredPeripheral, let discoveredStateCharacteristic else { return }
        for value in values {
            discoveredPeripheral.writeValue(value, for: discoveredStateCharacteristic, type: .withoutResponse)
        }
    }
}

/// "Subscribing to Notifications" done by hand: instead of `setNotifyValue(true, for:)` the app
/// discovers the Heart Rate Measurement's descriptors and writes 01 00 into its CCCD, the way
/// Android code does (`writeDescriptor`). Core Bluetooth refuses the write; no notification
/// ever comes.
final class WritesTheCCCD: HeartRateCentral {
    override func peripheral(
        _ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?
    ) {
        for c in service.characteristics ?? [] where c.uuid == heartRateMeasurementUUID {
            peripheral.discoverDescriptors(for: c)
        }
    }

    override func peripheral(
        _ peripheral: CBPeripheral, didDiscoverDescriptorsFor characteristic: CBCharacteristic, error: (any Error)?
    ) {
        for d in characteristic.descriptors ?? [] where d.uuid == CBUUID(string: "2902") {
            peripheral.writeValue(Data([0x01, 0x00]), for: d)  // not how Core Bluetooth subscribes
        }
    }
}

/// Disconnection handled with a reconnection (docs/rules/reconnect-storm.md), half done: the app
/// reconnects after a link loss but reads the Body Sensor Location through the
/// `CBCharacteristic` it kept from the first connection instead of discovering again. Core
/// Bluetooth refuses the read ("API MISUSE"); the value never comes.
final class KeepsCharacteristicsAcrossReconnect: HeartRateCentral {
    var sensorLocation: CBCharacteristic?
    var connections = 0

    override func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        connections += 1
        if let kept = sensorLocation {
            peripheral.readValue(for: kept)  // an object of the connection that ended
        } else {
            super.centralManager(central, didConnect: peripheral)
        }
    }

    override func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral,
        timestamp: CFAbsoluteTime, isReconnecting: Bool, error: (any Error)?
    ) {
        central.connect(peripheral, options: nil)
    }

    override func peripheral(
        _ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?
    ) {
        super.peripheral(peripheral, didDiscoverCharacteristicsFor: service, error: error)
        sensorLocation = sensorLocation ?? service.characteristics?.first { $0.uuid == bodySensorLocationUUID }
    }
}

// swift-tools-version: 6.1
import PackageDescription

// A client of blecap's libraries from outside its targets: one target per library product,
// each depending on that product alone and importing only its module, naming types that the
// product's public API hands out (BDAddr from a simulated peripheral, a DecodedFrame from a
// timeline, …). It compiles only if each product re-exports what its API names
// (scripts/check_products.py checks every public declaration; this is the compiler's view).
// Built by `make product-clients`, part of `make conformance`.
let package = Package(
    name: "ProductClients",
    dependencies: [.package(name: "blecap", path: "../..")],
    targets: [
        "CaptureIO", "BLEPackets", "BLETimeline", "BLEPass", "BLELint", "BLESimulator", "BLESimLint", "BLEReplay",
        "BLEController", "BLEDiagnose", "BLEFleet", "BLEFilter", "BLEOutput",
    ].map { product in
        .target(
            name: "\(product)Client", dependencies: [.product(name: product, package: "blecap")],
            path: "Sources/\(product)Client")
    },
    swiftLanguageModes: [.v6]
)

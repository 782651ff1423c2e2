// swift-tools-version: 6.1
import PackageDescription

// Data flows one way: bytes -> records (CaptureIO) -> packets (BLEPackets) -> timeline
// (BLETimeline) -> findings (BLELint) -> reports (BlecapCLI). BLESimulator emits the same
// timeline events from Core Bluetooth-style API calls.
// See docs/architecture.md.
let package = Package(
    name: "blecap",
    products: [
        .executable(name: "blecap", targets: ["blecap"]),
        .library(name: "CaptureIO", targets: ["CaptureIO"]),
        .library(name: "BLEPackets", targets: ["BLEPackets"]),
        .library(name: "BLETimeline", targets: ["BLETimeline"]),
        .library(name: "BLEPass", targets: ["BLEPass"]),
        .library(name: "BLEFilter", targets: ["BLEFilter"]),
        .library(name: "BLEOutput", targets: ["BLEOutput"]),
        .library(name: "BLELint", targets: ["BLELint"]),
        .library(name: "BLEDiagnose", targets: ["BLEDiagnose"]),
        .library(name: "BLEFleet", targets: ["BLEFleet"]),
        .library(name: "BLESimulator", targets: ["BLESimulator"]),
        .library(name: "BLESimLint", targets: ["BLESimLint"]),
        .library(name: "BLEReplay", targets: ["BLEReplay"]),
        .library(name: "BLEController", targets: ["BLEController"]),
        .executable(name: "BLESimulatorBench", targets: ["BLESimulatorBench"]),
        .executable(name: "BLECryptoBench", targets: ["BLECryptoBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
    ],
    targets: [
        .systemLibrary(
            name: "CPcap", path: "Sources/CPcap", pkgConfig: "libpcap",
            providers: [.apt(["libpcap-dev"])]),
        .systemLibrary(
            name: "CBluetooth", path: "Sources/CBluetooth", pkgConfig: "bluez",
            providers: [.apt(["libbluetooth-dev"])]),
        // Archives and compressed logs (gzip, xz, zip, tar) for CaptureArchive.
        .systemLibrary(
            name: "CArchive", path: "Sources/CArchive", pkgConfig: "libarchive",
            providers: [.apt(["libarchive-dev"])]),
        // zlib for btsnooz's deflate stream inside Android bug reports (libarchive reads no bare zlib).
        .systemLibrary(
            name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // Tiny C helpers libpcap needs (a FILE* that replays sniffed stdin bytes).
        .target(name: "CCaptureSupport", path: "Sources/CCaptureSupport"),
        .target(name: "BLEBytes"),
        // SHA-256 blocks with the x86 SHA extensions, chosen at run time by BLEFleet's SHA256 (the
        // portable Swift code is the fallback and the reference).
        .target(name: "CSHA256", path: "Sources/CSHA256"),
        // The virtual air's core: the one timed queue and the one ATT bearer state of the
        // simulator, the replay engine and the virtual controller (docs/architecture.md, "The
        // virtual air"). It reads ATT PDUs through BLEPackets' typed decoders.
        .target(name: "BLEAir", dependencies: ["BLEBytes", "BLECodes", "BLEPackets"]),
        // AES-128, the LE security toolbox (e, c1, s1, ah), link-layer AES-CCM and legacy-pairing
        // key recovery: pure functions on numbers and bytes; BLEPackets re-exports it.
        .target(name: "BLECrypto", dependencies: ["BLEBytes"]),
        // Protocol code constants (ATT opcodes, HCI codes, L2CAP channels) shared by the capture
        // readers and the decoders; BLEPackets re-exports them.
        .target(name: "BLECodes"),
        .target(name: "CaptureIO", dependencies: ["BLEBytes", "BLECodes", "CPcap", "CCaptureSupport", "CBluetooth"]),
        .target(
            name: "BLEPackets", dependencies: ["BLEBytes", "BLECodes", "BLECrypto", "CaptureIO", "CBluetooth"]),
        // Captures inside archives, compressed files, Android bug reports (btsnooz) and sysdiagnose.
        .target(
            name: "CaptureArchive", dependencies: ["BLEBytes", "CaptureIO", "CArchive", "CZlib", "CCaptureSupport"]),
        .target(
            name: "BLETimeline", dependencies: ["BLEBytes", "CaptureIO", "BLEPackets"],
            path: "Sources/BLETimeline"),
        // CapturePass: input → reader → decoder → timeline → consumers, the one decode loop.
        .target(name: "BLEPass", dependencies: ["CaptureIO", "BLEPackets", "BLETimeline"]),
        // The one filter language of packets, timeline and watch (docs/filter.md): compiled once,
        // evaluated per frame or event.
        .target(name: "BLEFilter", dependencies: ["BLEBytes", "CaptureIO", "BLEPackets", "BLETimeline"]),
        // The output contracts: the byte sink and its JSON escaping, the packets and timeline
        // writers (text and JSONL), `info`'s statistics, the colours of text output.
        .target(
            name: "BLEOutput",
            dependencies: [
                "BLEBytes", "CaptureIO", "BLEPackets", "BLETimeline", "BLEPass", "BLEFilter", "BLELint", "BLEDiagnose",
            ]),
        .target(name: "BLELint", dependencies: ["BLEBytes", "CaptureIO", "BLEPackets", "BLETimeline", "BLEPass"]),
        // Why each connection ended or failed (`blecap diagnose`), read from the timeline alone.
        .target(name: "BLEDiagnose", dependencies: ["BLEBytes", "BLEPackets", "BLETimeline", "BLEPass"]),
        // Batch mode over many captures (`--files-from`, directories): streamed rows, per-capture
        // limits in child processes, the fleet tables with keyed pseudonyms (docs/fleet.md).
        .target(
            name: "BLEFleet",
            dependencies: [
                "BLEBytes", "CaptureIO", "CaptureArchive", "BLEPackets", "BLETimeline", "BLELint", "BLEDiagnose",
                "BLEFilter", "BLEReport", "CSHA256",
            ]),
        // The simulator, with replay into it (captured peripherals with their recorded GATT servers
        // installed in a SimulatedWorld, a captured central played against CBPeripheralManager
        // code) over BLEReplay; `blecap` does not link it.
        .target(
            name: "BLESimulator",
            dependencies: ["BLEAir", "BLEBytes", "CaptureIO", "BLEPackets", "BLETimeline", "BLEReplay"]),
        // Simulator trace → lint (via the trace's JSONL); BLELint and BLESimulator stay independent.
        .target(name: "BLESimLint", dependencies: ["BLELint", "BLESimulator"]),
        // Spill storage: what grows with a capture kept in blocks of one unlinked temporary file
        // (`Spool`, `SpooledArray`) and sorted past memory (`ExternalSorter`); replay's.
        .target(name: "BLESpool"),
        .target(
            name: "BLEReplay",
            dependencies: ["BLEAir", "BLEBytes", "CaptureIO", "BLEPackets", "BLETimeline", "BLEPass", "BLESpool"]),
        // A virtual HCI controller whose air is a capture (`blecap serve`): real host stacks
        // drive it over H4; the captured peripherals answer from BLEReplay's models.
        .target(
            name: "BLEController",
            dependencies: ["BLEAir", "BLEBytes", "BLECodes", "CaptureIO", "BLEPackets", "BLETimeline", "BLEReplay"]),
        .executableTarget(name: "BLESimulatorBench", dependencies: ["BLESimulator", "BLEBytes"]),
        // The legacy-pairing brute force at its worst and AES/AES-CCM speeds (docs/link-layer-encryption.md).
        .executableTarget(name: "BLECryptoBench", dependencies: ["BLECrypto", "BLEBytes"]),
        // The page's script and stylesheet are files, compiled into the module as byte arrays
        // (no resource bundle to find next to an installed binary).
        .target(
            name: "BLEReport",
            dependencies: [
                "BLEBytes", "CaptureIO", "BLEPackets", "BLETimeline", "BLELint", "BLEDiagnose", "BLEFilter",
            ],
            resources: [.embedInCode("Resources/report.js"), .embedInCode("Resources/report.css")]),
        // Records the commit BlecapCLI is built from, for `blecap --version` (scripts/build-commit.sh).
        .plugin(name: "BuildCommit", capability: .buildTool()),
        .target(
            name: "BlecapCLI",
            dependencies: [
                "BLEBytes", "CaptureIO", "CaptureArchive", "BLEPackets", "BLETimeline", "BLEPass", "BLEFilter",
                "BLEOutput", "BLELint", "BLEReport", "BLEDiagnose", "BLEReplay", "BLEController", "BLEFleet",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            plugins: ["BuildCommit"]),
        // The release binary carries the Swift runtime, Foundation's essentials and Dispatch in
        // itself instead of loading them as shared libraries: a process starts with a fraction of
        // the dynamic loader's work and memory (docs/performance.md, "A blecap process's start").
        // The modules are compiled against the shared runtime, whose FoundationEssentials does not
        // ask for its C shims and collections (inside its .so): the static link names them. Nothing
        // looks the executable's own symbols up at run time, so the static link's export of them
        // all is undone.
        .executableTarget(
            name: "blecap", dependencies: ["BlecapCLI"],
            linkerSettings: [
                .unsafeFlags(
                    [
                        "-static-stdlib", "-l_FoundationCShims", "-l_FoundationCollections",
                        "-Xlinker", "--no-export-dynamic",
                    ],
                    .when(platforms: [.linux], configuration: .release))
            ]),
        .target(name: "TestSupport", dependencies: ["BLEBytes", "CaptureIO", "CArchive"], path: "Tests/TestSupport"),
        .testTarget(name: "BLEBytesTests", dependencies: ["BLEBytes", "TestSupport"]),
        .testTarget(name: "BLESpoolTests", dependencies: ["BLESpool", "BLEBytes", "TestSupport"]),
        .testTarget(name: "BLEAirTests", dependencies: ["BLEAir", "BLEBytes", "BLECodes", "BLEPackets"]),
        .testTarget(name: "CaptureIOTests", dependencies: ["CaptureIO", "BLEBytes", "TestSupport"]),
        .testTarget(
            name: "CaptureArchiveTests",
            dependencies: [
                "CaptureArchive", "CaptureIO", "CArchive", "CZlib", "BLEPackets", "BLETimeline", "BLELint", "BLEBytes",
                "TestSupport",
            ]),
        .testTarget(
            name: "BLEPacketsTests",
            dependencies: ["BLEPackets", "CaptureIO", "BLEBytes", "TestSupport"]),
        .testTarget(
            name: "BLEPassTests", dependencies: ["BLEPass", "BLETimeline", "BLEPackets", "CaptureIO", "TestSupport"]),
        .testTarget(
            name: "BLEOutputTests", dependencies: ["BLEOutput", "BLEPass", "BLETimeline", "CaptureIO", "TestSupport"]),
        .testTarget(
            name: "BLEFilterTests",
            dependencies: ["BLEFilter", "BLEPass", "BLETimeline", "BLEPackets", "CaptureIO", "TestSupport"],
            exclude: ["Corpus"]),
        .testTarget(
            name: "BLETimelineTests",
            dependencies: ["BLETimeline", "BLEPackets", "CaptureIO", "BLEBytes", "TestSupport"]),
        .testTarget(
            name: "BLESimulatorTests",
            dependencies: ["BLESimulator", "BLETimeline", "BLEBytes", "CaptureIO", "BLEPackets"]),
        // iOS app code compiled with only `import CoreBluetooth` replaced (docs/simulator.md).
        .testTarget(name: "SimulatorCompileTests", dependencies: ["BLESimulator"]),
        .testTarget(
            name: "ExamplesTests", dependencies: ["BLESimulator", "BLESimLint", "BLELint", "BLEBytes"]),
        .testTarget(
            name: "BLELintTests",
            dependencies: ["BLELint", "BLETimeline", "BLEPackets", "CaptureIO", "BLEBytes", "TestSupport"],
            exclude: ["Corpus"]),
        .testTarget(
            name: "BLEDiagnoseTests",
            dependencies: ["BLEDiagnose", "BLETimeline", "BLEPackets", "CaptureIO", "BLEBytes", "TestSupport"]),
        .testTarget(
            name: "BLEReplayTests",
            dependencies: [
                "BLEAir", "BLEReplay", "BLESimulator", "BLETimeline", "BLEPackets", "CaptureIO",
                "BLEBytes", "BLESpool", "TestSupport",
            ]),
        .testTarget(
            name: "BLEControllerTests",
            dependencies: [
                "BLEController", "BLEAir", "BLEReplay", "BLEPackets", "CaptureIO", "BLEBytes", "TestSupport",
            ]),
        .testTarget(
            name: "BLEReportTests",
            dependencies: ["BLEReport", "BLELint", "BLEDiagnose", "BLETimeline", "BLEBytes", "TestSupport"]),
        .testTarget(
            name: "BLEFleetTests",
            dependencies: ["BLEFleet", "CaptureArchive", "BLEBytes", "TestSupport"]),
        .testTarget(
            name: "BlecapCLITests",
            dependencies: ["BlecapCLI", "BLEOutput", "BLEPackets", "CaptureIO", "BLEBytes", "TestSupport"],
            exclude: ["Snapshots"]),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer targets (Fuzz/, run by scripts/fuzz.sh). Declared only when BLECAP_FUZZ is set,
// because they link only with `-sanitize=fuzzer`: a plain `swift build` never sees them.
if Context.environment["BLECAP_FUZZ"] != nil {
    package.targets += [
        // libFuzzer's LLVMFuzzerRunDriver declared for Swift, and memfd_create.
        .target(name: "CFuzzerDriver", path: "Fuzz/CFuzzerDriver"),
        .target(
            name: "FuzzSupport",
            dependencies: [
                "BlecapCLI", "BLEOutput", "BLETimeline", "BLEPackets", "CaptureIO", "CaptureArchive", "BLEBytes",
                "CFuzzerDriver",
            ],
            path: "Fuzz/FuzzSupport"),
    ]
    for name in ["FuzzBTSnoop", "FuzzPcap", "FuzzPacketLogger", "FuzzDecoders", "FuzzArchive"] {
        package.targets.append(
            .executableTarget(
                name: name, dependencies: ["FuzzSupport", "CFuzzerDriver"], path: "Fuzz/\(name)",
                swiftSettings: [.unsafeFlags(["-parse-as-library"])]))
    }
    // Host input to the virtual HCI controller (`blecap serve`).
    package.targets.append(
        .executableTarget(
            name: "FuzzServe", dependencies: ["BLEController", "BLEReplay", "CFuzzerDriver"], path: "Fuzz/FuzzServe",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]))
    // Controller input to blecap as the host of a controller (`blecap replay --controller`).
    package.targets.append(
        .executableTarget(
            name: "FuzzRadioHost", dependencies: ["BLEController", "BLEReplay", "CFuzzerDriver"],
            path: "Fuzz/FuzzRadioHost", exclude: ["Seeds"],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]))
}

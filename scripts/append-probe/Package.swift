// swift-tools-version: 6.2
// The one-call append loop of `logbook bench log`, alone, for counting instructions under
// callgrind or alternating two builds by wall clock (docs/benchmarks.md, "Counting
// instructions when the clock is too noisy"). Point `path:` at another checkout to measure
// the build before a change.
import PackageDescription

let package = Package(
    name: "append-probe",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "Logbook", path: "../..")],
    targets: [
        .executableTarget(
            name: "append-probe",
            dependencies: [
                .product(name: "Logbook", package: "Logbook"),
                .product(name: "LogbookCRDT", package: "Logbook"),
                .product(name: "LogbookWorkloads", package: "Logbook"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)])
    ])

// swift-tools-version: 6.1
// Logbook's benchmark suites (package-benchmark), kept in their own package so their
// dependencies (package-benchmark, GRDB for the SQLite baseline) never reach library users.
// Run from this directory: swift package --allow-writing-to-package-directory benchmark

import PackageDescription

let package = Package(
    name: "LogbookBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Logbook", path: ".."),
        .package(
            url: "https://github.com/ordo-one/benchmark", from: "1.38.1",
            traits: ["MallocInterposer"]),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "LogBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logbook", package: "Logbook"),
                .product(name: "LogbookCRDT", package: "Logbook"),
                .product(name: "LogbookStorage", package: "Logbook"),
                .product(name: "LogbookTesting", package: "Logbook"),
            ],
            path: "LogBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ]
)

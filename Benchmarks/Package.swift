// swift-tools-version: 6.1
// Logbook's benchmark suites (package-benchmark), kept in their own package so their
// dependency (package-benchmark and its malloc interposer) never reaches library users; the
// SQLite baseline comes from LogbookBench.
// Run from this directory: swift package --allow-writing-to-package-directory benchmark

import PackageDescription

let package = Package(
    name: "LogbookBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Logbook", path: ".."),
        .package(
            url: "https://github.com/ordo-one/benchmark", from: "1.38.1",
            traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "LogBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Logbook", package: "Logbook"),
                .product(name: "LogbookBench", package: "Logbook"),
                .product(name: "LogbookCRDT", package: "Logbook"),
                .product(name: "LogbookShipping", package: "Logbook"),
                .product(name: "LogbookStorage", package: "Logbook"),
                .product(name: "LogbookTesting", package: "Logbook"),
                .product(name: "LogbookViews", package: "Logbook"),
                .product(name: "LogbookWorkloads", package: "Logbook"),
            ],
            path: "LogBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ]
)

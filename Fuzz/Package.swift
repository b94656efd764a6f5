// swift-tools-version: 6.1
// libFuzzer targets for Logbook's decoders and importers, in their own package so the
// fuzzer-instrumented build (-sanitize=fuzzer) never touches the main one. Run them with
// scripts/fuzz.sh (docs/TESTING.md#fuzzing); LOGBOOK_FUZZ_TARGET picks the target.

import PackageDescription

let package = Package(
    name: "LogbookFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Logbook", path: "..")],
    targets: [
        .executableTarget(
            name: "LogbookFuzz",
            dependencies: [
                .product(name: "Logbook", package: "Logbook"),
                .product(name: "LogbookCRDT", package: "Logbook"),
                .product(name: "LogbookStorage", package: "Logbook"),
                .product(name: "LogbookTesting", package: "Logbook"),
                .product(name: "LogbookViews", package: "Logbook"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-parse-as-library"])])
    ]
)

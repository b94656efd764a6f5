// swift-tools-version: 6.2
// Logbook: an event-sourced, append-only log engine whose every mutation is a CRDT change.
// Core targets depend only on system libraries and small Apple packages; anything heavy
// (HTTP, benchmarks, SQLite) lives outside them. See docs/ARCHITECTURE.md.

import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .define("LOGBOOK_VERIFY", .when(configuration: .debug)),
]

// LZ4 blocks: the system's liblz4 on Linux; this project's own codec on Apple platforms (an
// app cannot ship Homebrew's liblz4) and wherever the package is built with LOGBOOK_LZ4=swift
// (CI runs the whole suite once that way). The storage tests link liblz4 on Linux either way,
// to compare the two.
let buildsOwnLZ4 = Context.environment["LOGBOOK_LZ4"] == "swift"
let systemLZ4: Target.Dependency = .target(name: "CLZ4", condition: .when(platforms: [.linux]))
let storageSettings = strictSettings + (buildsOwnLZ4 ? [.define("LOGBOOK_SWIFT_LZ4")] : [])

// The server side (node, hub, benchmark, command line) and what only it needs, behind the
// `Server` trait, on by default so that `swift build`, `make demo` and `make test` here build
// everything. An app turns it off (`.package(..., traits: [])`, as the README shows) and then
// fetches swift-metrics alone: SwiftPM resolves no package that only a disabled trait's
// dependencies name (`AppFixtureResolutionTests` counts what it fetches).
extension Target.Dependency {
    static func server(product name: String, package: String) -> Target.Dependency {
        .product(name: name, package: package, condition: .when(traits: ["Server"]))
    }
}

let package = Package(
    name: "Logbook",
    // The Swift 6 runtime sets every Apple floor: typed throws (`throws(StorageError)`) in a
    // function type that needs type metadata (a stored closure such as `LogCursor.replan`,
    // a generic argument) runs only there (docs/decisions/0017-platform-floors.md). It also
    // covers ContinuousClock and Duration (macOS 13, iOS 16). iPadOS builds as iOS.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "LogbookCRDT", targets: ["LogbookCRDT"]),
        .library(name: "LogbookStorage", targets: ["LogbookStorage"]),
        .library(name: "Logbook", targets: ["Logbook"]),
        .library(name: "LogbookTesting", targets: ["LogbookTesting"]),
        .library(name: "LogbookWorkloads", targets: ["LogbookWorkloads"]),
        .library(name: "LogbookViews", targets: ["LogbookViews"]),
        .library(name: "LogbookData", targets: ["LogbookData"]),
        .library(name: "LogbookShipping", targets: ["LogbookShipping"]),
        .library(name: "LogbookNode", targets: ["LogbookNode"]),
        .library(name: "LogbookBench", targets: ["LogbookBench"]),
        .executable(name: "logbook", targets: ["logbook"]),
    ],
    traits: [
        .trait(
            name: "Server",
            description:
                "The node, hub, benchmark and command line: Hummingbird, AsyncHTTPClient, "
                + "SwiftNIO, postgres-nio, GRDB, swift-prometheus, swift-service-lifecycle, "
                + "swift-log and swift-argument-parser. An app that embeds Logbook turns it off."
        ),
        .default(enabledTraits: ["Server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // Shipping only: the core targets never see HTTP.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // Already in the graph through Hummingbird; named for NIOHTTPTypes's request parts.
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // The node service (LogbookNode) and the CLI's logging; Hummingbird uses both already.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Engine and replication figures (API only in the core), exported by the node.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The benchmark's SQLite baseline (LogbookBench only; `logbook bench` and Benchmarks/).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // The hub's PostgreSQL client (LogbookHub only).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // `swift package generate-documentation`: the DocC catalogs, checked in CI.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLZ4",
            pkgConfig: "liblz4",
            providers: [.apt(["liblz4-dev"])]
        ),
        .target(name: "CCRC32C"),
        .target(name: "CLZ4Codec"),
        .target(name: "CMemoryHints"),
        .target(name: "CThreadNames"),
        .target(name: "CWriteback"),
        .target(name: "LogbookCRDT", dependencies: ["CMemoryHints"], swiftSettings: strictSettings),
        .target(
            name: "LogbookStorage",
            dependencies: [
                "CCRC32C", "CLZ4Codec", "CMemoryHints", "CThreadNames", "CWriteback",
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ] + (buildsOwnLZ4 ? [] : [systemLZ4]),
            swiftSettings: storageSettings),
        .target(
            name: "Logbook",
            dependencies: [
                "LogbookCRDT", "LogbookStorage", "CMemoryHints",
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings),
        .target(
            name: "LogbookViews",
            dependencies: ["Logbook", "LogbookCRDT", "LogbookData", "CMemoryHints"],
            swiftSettings: strictSettings),
        .target(
            name: "LogbookData", dependencies: ["Logbook", "LogbookCRDT"],
            swiftSettings: strictSettings),
        .target(
            name: "LogbookWorkloads",
            dependencies: ["LogbookStorage", "LogbookCRDT", "Logbook", "LogbookViews"],
            swiftSettings: strictSettings),
        .target(
            name: "LogbookTesting",
            dependencies: [
                "LogbookStorage", "LogbookCRDT", "Logbook", "LogbookViews", "LogbookWorkloads",
            ],
            swiftSettings: strictSettings),
        .target(
            name: "LogbookShipping",
            dependencies: [
                "Logbook", "LogbookCRDT", "LogbookStorage",
                .server(product: "Hummingbird", package: "hummingbird"),
                .server(product: "HummingbirdCore", package: "hummingbird"),
                .server(product: "HummingbirdTLS", package: "hummingbird"),
                .server(product: "AsyncHTTPClient", package: "async-http-client"),
                .server(product: "NIOSSL", package: "swift-nio-ssl"),
                .server(product: "NIOCore", package: "swift-nio"),
                .server(product: "NIOHTTP1", package: "swift-nio"),
                .server(product: "NIOPosix", package: "swift-nio"),
                .server(product: "NIOHTTPTypes", package: "swift-nio-extras"),
                .server(product: "HTTPTypes", package: "swift-http-types"),
                .server(product: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .server(product: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strictSettings),
        .target(
            name: "LogbookNode",
            dependencies: [
                "Logbook", "LogbookShipping",
                .server(product: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .server(product: "Logging", package: "swift-log"),
                .server(product: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Metrics", package: "swift-metrics"),
                .server(product: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strictSettings),
        // Hub mode: stream state in PostgreSQL, merged with crdt-lite's rules in SQL.
        .target(
            name: "LogbookHub",
            dependencies: [
                "Logbook", "LogbookCRDT", "LogbookStorage", "LogbookShipping",
                .server(product: "Hummingbird", package: "hummingbird"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .server(product: "Prometheus", package: "swift-prometheus"),
                .server(product: "HTTPTypes", package: "swift-http-types"),
                .server(product: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .server(product: "PostgresNIO", package: "postgres-nio"),
                .server(product: "Logging", package: "swift-log"),
                .server(product: "NIOCore", package: "swift-nio"),
                .server(product: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictSettings),
        // The benchmark harness, the demo and the command line's reports: what `logbook bench`
        // measures, `logbook demo` narrates and every command prints (text or --json), as a
        // library so the command line only parses and prints.
        .target(
            name: "LogbookBench",
            dependencies: [
                "Logbook", "LogbookCRDT", "LogbookStorage", "LogbookWorkloads", "LogbookViews",
                "LogbookData", "LogbookShipping", "LogbookHub",
                .server(product: "GRDB", package: "GRDB.swift"),
                .server(product: "PostgresNIO", package: "postgres-nio"),
                .server(product: "Logging", package: "swift-log"),
                .server(product: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strictSettings),
        .executableTarget(
            name: "logbook",
            dependencies: [
                "Logbook", "LogbookCRDT", "LogbookStorage", "LogbookViews", "LogbookShipping",
                "LogbookNode", "LogbookBench", "LogbookWorkloads", "LogbookHub",
                .server(product: "Logging", package: "swift-log"),
                .server(product: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        // The kill -9 crash test's child process: built for the tests, installed by nobody.
        .executableTarget(
            name: "LogbookCrashWriter",
            dependencies: [
                "Logbook", "LogbookCRDT",
                .server(product: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings),
        .testTarget(
            name: "LogbookCRDTTests", dependencies: ["LogbookCRDT", "LogbookTesting"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "LogbookTests",
            dependencies: ["Logbook", "LogbookCRDT", "LogbookStorage", "LogbookTesting"],
            swiftSettings: strictSettings),
        .testTarget(name: "TidyTests", swiftSettings: strictSettings),
        .testTarget(
            name: "LogbookDataTests",
            dependencies: [
                "LogbookData", "Logbook", "LogbookCRDT", "LogbookTesting", "LogbookWorkloads",
            ],
            swiftSettings: strictSettings),
        .testTarget(
            name: "LogbookViewsTests",
            dependencies: [
                "LogbookViews", "Logbook", "LogbookCRDT", "LogbookData", "LogbookTesting",
            ],
            swiftSettings: strictSettings),
        .testTarget(
            name: "CrashTests", dependencies: ["Logbook", "LogbookCRDT", "LogbookTesting"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "LogbookStorageTests",
            dependencies: ["LogbookStorage", "LogbookTesting", systemLZ4],
            swiftSettings: strictSettings),
        .testTarget(
            name: "LogbookShippingTests",
            dependencies: [
                "LogbookShipping", "LogbookNode", "Logbook", "LogbookCRDT", "LogbookTesting",
                .server(product: "AsyncHTTPClient", package: "async-http-client"),
                .server(product: "Hummingbird", package: "hummingbird"),
                .server(product: "NIOCore", package: "swift-nio"),
                .server(product: "NIOHTTP1", package: "swift-nio"),
                .server(product: "NIOPosix", package: "swift-nio"),
                .server(product: "HTTPTypes", package: "swift-http-types"),
                .server(product: "NIOSSL", package: "swift-nio-ssl"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "LogbookHubTests",
            dependencies: [
                "LogbookHub", "Logbook", "LogbookCRDT", "LogbookTesting", "LogbookShipping",
                .server(product: "AsyncHTTPClient", package: "async-http-client"),
                .server(product: "NIOCore", package: "swift-nio"),
                .server(product: "NIOHTTP1", package: "swift-nio"),
                .server(product: "PostgresNIO", package: "postgres-nio"),
                .server(product: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings),
        .testTarget(
            name: "LogbookBenchTests",
            dependencies: ["LogbookBench", "LogbookCRDT", "LogbookTesting"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "CCRC32CTests", dependencies: ["CCRC32C", "LogbookTesting"],
            swiftSettings: strictSettings),
    ]
)

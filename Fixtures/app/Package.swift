// swift-tools-version: 6.2
// An app that embeds Logbook, as the README's "Use it from an app" shows: the products an
// app builds, with the `Server` trait off. `AppFixtureResolutionTests` resolves it against
// this checkout (the path is rewritten to it) and counts the packages SwiftPM fetches.
import PackageDescription

let package = Package(
    name: "NoteTaker",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    // README: begin
    dependencies: [
        // A checkout; or .package(url: "<its git URL>", branch: "main", traits: [])
        .package(path: "../logbook", traits: []),  // traits: [] leaves the server side out
    ],
    targets: [
        .executableTarget(
            name: "NoteTaker",
            dependencies: [
                .product(name: "Logbook", package: "logbook"),
                .product(name: "LogbookCRDT", package: "logbook"),
                .product(name: "LogbookData", package: "logbook"),
                .product(name: "LogbookViews", package: "logbook"),
                .product(name: "LogbookTesting", package: "logbook"),
            ]),
    ]
    // README: end
)

// swift-tools-version: 6.2
// Three small apps on Logbook's embedded products, each one file that reads top to bottom:
// a chat app, a smart-home app and a drawbridge importer. They depend on this checkout as
// an app depends on Logbook, with the `Server` trait off. Run one with `swift run Chat`
// (or `Home`, `Bridges`) in this directory; `make examples` builds and runs all three.
import Foundation
import PackageDescription

// SwiftPM names a package found by path after its directory, whatever that is called in a
// given checkout; an app names it "logbook" (`.package(url: …)`).
let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent()
let logbook = checkout.lastPathComponent.lowercased()

func product(_ name: String) -> Target.Dependency {
    .product(name: name, package: logbook)
}

let package = Package(
    name: "LogbookExamples",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    dependencies: [
        .package(path: checkout.path, traits: [])
    ],
    targets: [
        .executableTarget(
            name: "Chat",
            dependencies: [product("Logbook"), product("LogbookData"), product("LogbookViews")]),
        .executableTarget(
            name: "Home",
            dependencies: [product("Logbook"), product("LogbookData"), product("LogbookViews")]),
        .executableTarget(
            name: "Bridges",
            dependencies: [
                product("Logbook"), product("LogbookData"), product("LogbookViews"),
                product("LogbookTesting"),
            ]),
    ]
)

// swift-tools-version:6.2

// An app's view of Tether: the products an app links, with no trait enabled. `Scripts/check-app-consumer.sh` (run
// by CI) resolves it, checks that only swift-log, swift-crypto, swift-asn1 and swift-http-types come with it, and
// builds it.

import PackageDescription

/// SwiftPM names a package depended on by path after its folder: the clone's folder, whatever it is called.
let tether = Context.packageDirectory.split(separator: "/").dropLast(2).last.map { String($0).lowercased() } ?? "tether"

let package = Package(
    name: "AppConsumer",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    dependencies: [
        // What an app writes, with the repository's URL and a version instead of the path.
        .package(path: "../..", traits: [])
    ],
    targets: [
        .target(
            name: "AppConsumer",
            dependencies: [
                .product(name: "Tether", package: tether),
                .product(name: "TetherOAuth", package: tether),
                .product(name: "TetherURLSession", package: tether),
                .product(name: "TetherKeychain", package: tether),
                .product(name: "TetherCalendar", package: tether),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)

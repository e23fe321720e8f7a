// swift-tools-version:6.2

// Tether's benchmarks, a package of their own so that the library's manifest ships only what ships. They depend on
// the repository's root by path. See docs/benchmarks.md:
//   swift build -c release --package-path Benchmarks --product TetherBenchmarks
//   Benchmarks/.build/release/TetherBenchmarks

import PackageDescription

/// SwiftPM names a package depended on by path after its folder: the clone's folder, whatever it is called.
let tetherPackage =
    Context.packageDirectory.split(separator: "/").dropLast(1).last.map { String($0).lowercased() } ?? "tether"

let package = Package(
    name: "TetherBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        // Sign-in, refresh, the hot path, calendars and the peers beside them (docs/benchmarks.md).
        .executableTarget(
            name: "TetherBenchmarks",
            dependencies: [
                .tether("Tether"),
                .tether("TetherCalendar"),
                .tether("TetherTesting"),
                .tether("TetherOAuth"),
                .tether("TetherJWT"),
                .tether("TetherURLSession"),
                .tether("TetherAsyncHTTPClient"),
                .tether("TetherServer"),
                .tether("TetherDevProvider"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "TetherBenchmarks"
        ),
        // Run under `Scripts/start-postgres.sh` (docs/benchmarks.md, "PostgreSQL store and refresh scheduler").
        .executableTarget(
            name: "SchedulerBenchmarks",
            dependencies: [
                .tether("Tether"),
                .tether("TetherOAuth"),
                .tether("TetherAsyncHTTPClient"),
                .tether("TetherDevProvider"),
                .tether("TetherPostgres"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "SchedulerBenchmarks"
        ),
        // The flight detector on its corpus and on large calendars.
        .executableTarget(
            name: "FlightBench",
            dependencies: [.tether("TetherFlights")],
            path: "FlightBench"
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    settings.append(.enableUpcomingFeature("NonisolatedNonsendingByDefault"))
    settings.append(.treatAllWarnings(as: .error))
    target.swiftSettings = settings
}

extension Target.Dependency {
    /// A product of the repository's root package.
    static func tether(_ name: String) -> Target.Dependency { .product(name: name, package: tetherPackage) }
}

// swift-tools-version:6.2

import PackageDescription

/// The core library, its test support and its tests (`Tests/TetherTests`: the session, refresh and store suites) as
/// one small package, for the sanitizer passes (Scripts/sanitize.sh): a `swift test --sanitize=thread` of the
/// whole package above rebuilds every dependency of every module with the sanitizer, this one only swift-log,
/// swift-crypto and swift-http-types. The sources are the package's own, through the symbolic links in Sources and
/// Tests; the settings are the root Package.swift's.
/// Where the Security framework is missing (`SecItemShim` and `KeychainSimulator` stand in), as in the root manifest.
let nonApplePlatforms: [Platform] = [.linux, .windows, .android, .wasi, .openbsd]

let package = Package(
    name: "tether-sanitizers",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        .target(
            name: "Tether",
            dependencies: [
                "TetherVaultCore", .logging, .crypto, .httpTypes,
                .target(name: "BackgroundTasksShim", condition: .when(platforms: nonApplePlatforms)),
            ]
        ),
        .target(name: "TetherVaultCore", dependencies: [.crypto]),
        .target(name: "BackgroundTasksShim"),
        .target(name: "LocalAuthenticationShim"),
        .target(name: "TetherTesting", dependencies: ["Tether", .logging, .inMemoryLogging]),
        .target(
            name: "TetherKeychain",
            dependencies: [
                "Tether", .logging, .target(name: "SecItemShim", condition: .when(platforms: nonApplePlatforms)),
                .target(name: "LocalAuthenticationShim", condition: .when(platforms: nonApplePlatforms)),
            ]
        ),
        .target(name: "SecItemShim"),
        .target(name: "KeychainSimulator", dependencies: ["SecItemShim", "LocalAuthenticationShim"]),
        .target(name: "TetherTestSupport", dependencies: ["Tether", .httpTypes]),
        .executableTarget(
            name: "TetherStoreProbe",
            dependencies: [
                "Tether", "TetherTesting", "TetherKeychain",
                .target(name: "KeychainSimulator", condition: .when(platforms: nonApplePlatforms)),
                .target(name: "SecItemShim", condition: .when(platforms: nonApplePlatforms)),
            ]
        ),
        .testTarget(
            name: "TetherTests",
            dependencies: ["Tether", "TetherTesting", "TetherTestSupport", .crypto, .logging, .inMemoryLogging]
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
    static let httpTypes = Target.Dependency.product(name: "HTTPTypes", package: "swift-http-types")
    static let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
    static let crypto = Target.Dependency.product(name: "Crypto", package: "swift-crypto")
    static let inMemoryLogging = Target.Dependency.product(name: "InMemoryLogging", package: "swift-log")
}

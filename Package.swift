// swift-tools-version:6.2

import PackageDescription

/// Platforms without Apple's Security framework. There, `TetherKeychain` compiles against `SecItemShim` (the
/// SecItem names and constants, no functions), and only the tests run `KeychainStore`, over `KeychainSimulator`.
let nonApplePlatforms: [Platform] = [.linux, .windows, .android, .openbsd, .wasi]

let package = Package(
    name: "tether",
    platforms: [
        .macOS(.v13),
        .iOS(.v16),
        .tvOS(.v16),
        .watchOS(.v9),
        .visionOS(.v1),
    ],
    products: [
        .library(name: "Tether", targets: ["Tether"]),
        .library(name: "TetherKeychain", targets: ["TetherKeychain"]),
        .library(name: "TetherTesting", targets: ["TetherTesting"]),
        .library(name: "TetherURLSession", targets: ["TetherURLSession"]),
        .library(name: "TetherAsyncHTTPClient", targets: ["TetherAsyncHTTPClient"]),
        .library(name: "TetherOAuth", targets: ["TetherOAuth"]),
        .library(name: "TetherJWT", targets: ["TetherJWT"]),
        .library(name: "TetherDevProvider", targets: ["TetherDevProvider"]),
        .library(name: "TetherServer", targets: ["TetherServer"]),
        .library(name: "TetherHummingbird", targets: ["TetherHummingbird"]),
        .library(name: "TetherCalendar", targets: ["TetherCalendar"]),
        .executable(name: "tether", targets: ["TetherCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    ],
    targets: [
        // MARK: Core
        .target(
            name: "Tether",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),

        // MARK: HTTP transports
        .target(
            name: "TetherURLSession",
            dependencies: [
                "Tether",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
            ]
        ),

        .target(
            name: "TetherAsyncHTTPClient",
            dependencies: [
                "Tether",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),

        // MARK: OAuth 2.0 / OpenID Connect
        .target(
            name: "TetherOAuth",
            dependencies: [
                "Tether",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .target(
            name: "TetherJWT",
            dependencies: [
                "Tether",
                "TetherOAuth",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),

        // MARK: Server side: verifying bearer tokens
        .target(
            name: "TetherServer",
            dependencies: [
                "Tether",
                "TetherOAuth",
                "TetherJWT",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .target(
            name: "TetherHummingbird",
            dependencies: [
                "TetherServer",
                "TetherOAuth",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: Development provider (wire protocol only; no Tether types)
        .target(
            name: "TetherDevProvider",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: Keychain store
        .target(
            name: "TetherKeychain",
            dependencies: [
                "Tether",
                .product(name: "Logging", package: "swift-log"),
                .target(name: "SecItemShim", condition: .when(platforms: nonApplePlatforms)),
            ]
        ),
        .target(name: "SecItemShim"),
        // An in-memory keychain that follows Apple's SecItem rules; not a product: only the tests use it.
        .target(name: "KeychainSimulator", dependencies: ["SecItemShim"]),

        // MARK: Test support
        .target(
            name: "TetherTesting",
            dependencies: [
                "Tether",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),

        // MARK: Executables
        // The `tether` command-line tool: sign in, status, tokens for scripts, the development provider, the demo.
        .executableTarget(
            name: "TetherCLI",
            dependencies: [
                "Tether",
                "TetherCalendar",
                "TetherOAuth",
                "TetherJWT",
                "TetherURLSession",
                "TetherDevProvider",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // A helper process for the vault's crash and cross-process tests (see Tests/TetherTests/VaultCrashTests.swift).
        .executableTarget(
            name: "TetherStoreProbe",
            dependencies: ["Tether", "TetherTesting"],
            path: "Tests/Helpers/TetherStoreProbe"
        ),
        // `swift build -c release --product TetherBenchmarks` (see docs/benchmarks.md).
        .executableTarget(
            name: "TetherBenchmarks",
            dependencies: [
                "Tether",
                "TetherCalendar",
                "TetherTesting",
                "TetherOAuth",
                "TetherJWT",
                "TetherURLSession",
                "TetherAsyncHTTPClient",
                "TetherServer",
                "TetherDevProvider",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/TetherBenchmarks"
        ),

        // MARK: Examples (built by CI; see Examples/*/README.md)
        .executableTarget(
            name: "SignInAndCall",
            dependencies: [
                "Tether",
                "TetherOAuth",
                "TetherURLSession",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
            ],
            path: "Examples/SignInAndCall",
            exclude: ["README.md"]
        ),
        .executableTarget(
            name: "ProtectedService",
            dependencies: [
                "TetherOAuth",
                "TetherServer",
                "TetherHummingbird",
                "TetherURLSession",
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            path: "Examples/ProtectedService",
            exclude: ["README.md"]
        ),

        // MARK: Test support shared by the test targets (not products)
        .target(
            name: "TetherTestSupport",
            dependencies: ["Tether", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Tests/Support/TetherTestSupport"
        ),
        .target(
            name: "JWTTestSupport",
            dependencies: [
                "Tether",
                "TetherOAuth",
                "TetherJWT",
                "TetherTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            path: "Tests/Support/JWTTestSupport"
        ),
        .target(
            name: "SignInTestSupport",
            dependencies: [
                "Tether",
                "TetherOAuth",
                "TetherURLSession",
                "TetherDevProvider",
                "TetherTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tests/Support/SignInTestSupport"
        ),

        // MARK: Tests
        .testTarget(
            name: "TetherTests",
            dependencies: [
                "Tether",
                "TetherTesting",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "TetherOAuthTests",
            dependencies: [
                "Tether",
                "TetherOAuth",
                "TetherTesting",
                "TetherTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "TetherJWTTests",
            dependencies: [
                "Tether",
                "TetherOAuth",
                "TetherJWT",
                "TetherTesting",
                "TetherTestSupport",
                "JWTTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ]
        ),
        .testTarget(
            name: "TetherServerTests",
            dependencies: [
                "Tether",
                "TetherOAuth",
                "TetherJWT",
                "TetherServer",
                "TetherTesting",
                "JWTTestSupport",
            ]
        ),
        .testTarget(
            name: "TetherHummingbirdTests",
            dependencies: [
                "Tether",
                "TetherOAuth",
                "TetherJWT",
                "TetherServer",
                "TetherHummingbird",
                "TetherTesting",
                "TetherTestSupport",
                "JWTTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "TetherTransportTests",
            dependencies: [
                "Tether",
                "TetherURLSession",
                "TetherAsyncHTTPClient",
                "TetherDevProvider",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "TetherCLITests",
            dependencies: [
                "TetherCLI",
                "SignInAndCall",
                "Tether",
                "TetherOAuth",
                "TetherURLSession",
                "TetherDevProvider",
                "TetherTestSupport",
                "SignInTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .testTarget(
            name: "TetherEndToEndTests",
            dependencies: [
                "Tether",
                "TetherOAuth",
                "TetherJWT",
                "TetherURLSession",
                "TetherAsyncHTTPClient",
                "TetherTesting",
                "TetherDevProvider",
                "TetherServer",
                "TetherHummingbird",
                "TetherTestSupport",
                "JWTTestSupport",
                "SignInTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "TetherDevProviderTests",
            dependencies: [
                "TetherDevProvider",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "TetherKeychainTests",
            dependencies: [
                "Tether",
                "TetherKeychain",
                "TetherTesting",
                .target(name: "KeychainSimulator", condition: .when(platforms: nonApplePlatforms)),
                .target(name: "SecItemShim", condition: .when(platforms: nonApplePlatforms)),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),

        // MARK: Calendar connections
        .target(
            name: "TetherCalendar",
            dependencies: [
                "Tether",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Flights/Data/LICENSE-DATA.md"]
        ),
        .executableTarget(
            name: "FlightBench",
            dependencies: ["TetherCalendar"],
            path: "Benchmarks/FlightBench"
        ),
        .testTarget(
            name: "TetherCalendarTests",
            dependencies: [
                "Tether",
                "TetherCalendar",
                "TetherOAuth",
                "TetherTesting",
                "TetherURLSession",
                "TetherDevProvider",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Flights/Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where [.executable, .test, .regular].contains(target.type) {
    var settings = target.swiftSettings ?? []
    // Require `any` for existential types.
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    settings.append(.enableUpcomingFeature("NonisolatedNonsendingByDefault"))
    settings.append(.treatAllWarnings(as: .error))
    target.swiftSettings = settings
}

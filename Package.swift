// swift-tools-version:6.2

import PackageDescription

/// Platforms without Apple's Security framework. There, `TetherKeychain` compiles against `SecItemShim` (the
/// SecItem names and constants, no functions), and only the tests run `KeychainStore`, over `KeychainSimulator`.
let nonApplePlatforms: [Platform] = [.linux, .windows, .android, .openbsd, .wasi]

/// Platforms without EventKit (tvOS has none). There, `TetherCalendar` compiles `AppleCalendarSource` against
/// `EventKitShim`, and only the tests run it, over the shim's simulated event store.
let platformsWithoutEventKit: [Platform] = nonApplePlatforms + [.tvOS]

/// Platforms without BackgroundTasks' scheduler (macOS and watchOS have none). There, the core compiles
/// `AppRefreshTask` against `BackgroundTasksShim`, and only the tests run it, over the shim's scheduler.
let platformsWithoutBackgroundTasks: [Platform] = nonApplePlatforms + [.macOS, .watchOS]

/// Platforms without LocalAuthentication (tvOS has none). There, `TetherKeychain` compiles against
/// `LocalAuthenticationShim`; on tvOS the store refuses `refreshTokenProtection` and never passes a context.
let platformsWithoutLocalAuthentication: [Platform] = nonApplePlatforms + [.tvOS]

/// Platforms without UserNotifications. There, `TetherNotifications` compiles `StatusNotifier` against
/// `UserNotificationsShim`, and only the tests run it, over the shim's notification center.
let platformsWithoutUserNotifications: [Platform] = nonApplePlatforms

let package = Package(
    name: "tether",
    platforms: [
        .macOS(.v13),
        .iOS(.v16),
        .tvOS(.v16),
        .watchOS(.v9),
        .visionOS(.v1),
    ],
    // Each library product is the target of the same name.
    products: [
        "Tether", "TetherKeychain", "TetherTesting", "TetherURLSession", "TetherAsyncHTTPClient", "TetherOAuth",
        "TetherJWT", "TetherDevProvider", "TetherServer", "TetherHummingbird", "TetherCalendar", "TetherFlights",
        "TetherServiceLifecycle", "TetherPostgres", "TetherNotifications",
    ].map { Product.library(name: $0, targets: [$0]) } + [
        // `tether` answers a fresh token itself and runs `tether-cli`, installed beside it, for everything else.
        .executable(name: "tether", targets: ["TetherLauncher"]),
        .executable(name: "tether-cli", targets: ["TetherCLI"]),
        .executable(name: "tether-calendar", targets: ["TetherCalendarTool"]),
    ],
    // What an app does not need is behind a trait: a package that depends on Tether with `traits: []` resolves only
    // swift-log, swift-crypto (with swift-asn1) and swift-http-types (SE-0450; SwiftPM 6.2 leaves dependencies that
    // only disabled traits use out of resolution). This package's own build enables them all (the default, `CLI`).
    traits: [
        .trait(name: "JWT", description: "TetherJWT and TetherServer: JWT and ID-token verification (jwt-kit)."),
        .trait(
            name: "Hummingbird",
            description: "TetherHummingbird and TetherDevProvider (Hummingbird, jwt-kit).",
            enabledTraits: ["JWT"]
        ),
        .trait(name: "AsyncHTTPClient", description: "TetherAsyncHTTPClient (AsyncHTTPClient, SwiftNIO)."),
        .trait(name: "ServiceLifecycle", description: "TetherServiceLifecycle (swift-service-lifecycle)."),
        .trait(
            name: "Postgres",
            description: "TetherPostgres: PostgresStore and RefreshScheduler (PostgresNIO, swift-metrics).",
            enabledTraits: ["ServiceLifecycle"]
        ),
        .trait(
            name: "CLI",
            description: "The tether command, its tests, benchmarks and examples: every trait, and ArgumentParser.",
            enabledTraits: ["JWT", "Hummingbird", "AsyncHTTPClient", "ServiceLifecycle", "Postgres"]
        ),
        .default(enabledTraits: ["CLI"]),
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
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
    ],
    targets: [
        // MARK: Core
        .target(
            name: "Tether",
            dependencies: [
                "TetherVaultCore",
                .logging,
                .crypto,
                .httpTypes,
                .target(name: "BackgroundTasksShim", condition: .when(platforms: platformsWithoutBackgroundTasks)),
            ]
        ),
        // The bytes of vault records, the keys derived from a vault key and base64url, over FoundationEssentials and
        // swift-crypto only: shared by the core and the `tether` launcher, which must start in a few milliseconds.
        .target(name: "TetherVaultCore", dependencies: [.crypto]),
        // BackgroundTasks' names and signatures, with a scheduler a test can launch and expire tasks on, so that the
        // core's AppRefreshTask compiles and is tested off Apple platforms.
        .target(name: "BackgroundTasksShim"),

        // MARK: HTTP transports
        .target(
            name: "TetherURLSession",
            dependencies: [
                "Tether",
                .httpTypes,
                .httpTypesFoundation,
            ]
        ),

        .target(
            name: "TetherAsyncHTTPClient",
            dependencies: [
                "Tether",
                .asyncHTTPClient,
                .httpTypes,
                .nioCore,
                .nioPosix,
                .nioHTTP1,
            ]
        ),

        // MARK: OAuth 2.0 / OpenID Connect
        .target(
            name: "TetherOAuth",
            dependencies: [
                "Tether",
                .logging,
                .crypto,
                .httpTypes,
                .target(name: "AuthenticationServicesShim", condition: .when(platforms: nonApplePlatforms)),
            ]
        ),
        // AuthenticationServices' names and signatures (no behaviour), so that TetherOAuth's Apple-only presenter and
        // credential-state reader compile and are tested off Apple platforms.
        .target(name: "AuthenticationServicesShim"),
        .target(
            name: "TetherJWT",
            dependencies: [
                "Tether",
                "TetherOAuth",
                .jwtKit,
                .logging,
                .httpTypes,
            ]
        ),

        // MARK: Server side: verifying bearer tokens
        .target(
            name: "TetherServer",
            dependencies: [
                "Tether",
                "TetherOAuth",
                "TetherJWT",
                .logging,
                .httpTypes,
            ]
        ),
        .target(
            name: "TetherHummingbird",
            dependencies: [
                "TetherServer",
                "TetherOAuth",
                .hummingbird,
                .httpTypes,
                .logging,
            ]
        ),

        // MARK: Server side: graceful shutdown waits for refreshes in flight (the core does not depend on it)
        .target(
            name: "TetherServiceLifecycle",
            dependencies: [
                "Tether",
                .serviceLifecycle,
            ]
        ),

        // MARK: Development provider (wire protocol only; no Tether types)
        .target(
            name: "TetherDevProvider",
            dependencies: [
                .hummingbird,
                .jwtKit,
                .crypto,
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .httpTypes,
                .logging,
            ]
        ),

        // MARK: Keychain store
        .target(
            name: "TetherKeychain",
            dependencies: [
                "Tether",
                .logging,
                .target(name: "SecItemShim", condition: .when(platforms: nonApplePlatforms)),
                .target(
                    name: "LocalAuthenticationShim",
                    condition: .when(platforms: platformsWithoutLocalAuthentication)
                ),
            ]
        ),
        .target(name: "SecItemShim"),
        // LocalAuthentication's `LAContext` (names, no behaviour), for the keychain's authentication context.
        .target(name: "LocalAuthenticationShim"),
        // An in-memory keychain that follows Apple's SecItem rules; not a product: only the tests use it.
        .target(
            name: "KeychainSimulator",
            dependencies: ["SecItemShim", "LocalAuthenticationShim"],
            path: "Tests/Support/KeychainSimulator"
        ),

        // MARK: PostgreSQL store (not a dependency of the core product)
        .target(
            name: "TetherPostgres",
            dependencies: [
                "Tether",
                .crypto,
                .httpTypes,
                .postgresNIO,
                .logging,
                .serviceLifecycle,
                .metrics,
            ]
        ),

        // MARK: Local notifications of status changes (Apple platforms; off unless an app runs one)
        .target(
            name: "TetherNotifications",
            dependencies: [
                "Tether",
                .logging,
                .target(name: "UserNotificationsShim", condition: .when(platforms: platformsWithoutUserNotifications)),
            ]
        ),
        // UserNotifications' names, with a notification center that keeps what is posted in memory, so that
        // `StatusNotifier` compiles and is tested off Apple platforms. Not a product.
        .target(name: "UserNotificationsShim"),
        .testTarget(
            name: "TetherNotificationsTests",
            dependencies: [
                "Tether",
                "TetherNotifications",
                "TetherTesting",
                .target(name: "UserNotificationsShim", condition: .when(platforms: platformsWithoutUserNotifications)),
            ]
        ),

        // MARK: Test support
        .target(
            name: "TetherTesting",
            dependencies: [
                "Tether",
                .logging,
                .inMemoryLogging,
            ]
        ),

        // MARK: Executables
        // The `tether` command-line tool: sign in, status, tokens for scripts, the development provider, the demo.
        .executableTarget(
            name: "TetherCLI",
            dependencies: [
                "Tether",
                "TetherCommandSupport",
                "TetherCalendar",
                "TetherFlights",
                "TetherOAuth",
                "TetherJWT",
                "TetherAsyncHTTPClient",
                "TetherDevProvider",
                "TetherPostgres",
                .argumentParser,
                .postgresNIO,
                .httpTypes,
                .logging,
            ]
        ),
        // `tether`: prints a fresh token from the vault without loading the full tool, and runs `tether-cli` (the
        // target above) with the same arguments for anything else. See docs/decisions.md, "A launcher for fresh tokens".
        .executableTarget(
            name: "TetherLauncher",
            dependencies: ["TetherVaultCore", .crypto],
            // A release build on Linux is one static file (glibc and the Swift runtime linked in): no dynamic
            // loader, no shared libraries to map, no relocations at start. It starts in about 2.2 ms against 3.2 ms
            // for a `--static-swift-stdlib` build (docs/decisions.md §47). The launcher calls nothing of glibc that
            // loads modules at run time (no name service lookups, no `dlopen`). lld, which the Swift toolchain
            // ships, links it: gold warns about glibc functions that the launcher never calls.
            linkerSettings: [
                .unsafeFlags(
                    ["-static-executable", "-use-ld=lld"],
                    .when(platforms: [.linux], configuration: .release)
                )
            ]
        ),
        // What `tether-cli` and `tether-calendar` share: the profiles, the terminal, the calendar sources and the
        // calendar sync's run. No argument parser, JWT, PostgreSQL or Hummingbird: `tether-calendar` links it alone.
        .target(
            name: "TetherCommandSupport",
            dependencies: [
                "Tether",
                "TetherCalendar",
                "TetherOAuth",
                "TetherAsyncHTTPClient",
                .httpTypes,
                .logging,
            ]
        ),
        // `tether-calendar`: `tether calendar sync` in a process that links only what the sync needs, which the
        // launcher runs for it. It hands everything else, and any refresh, to `tether-cli` (docs/decisions.md §49).
        .executableTarget(
            name: "TetherCalendarTool",
            // Dynamically linked and position-independent, as `tether-cli`: it parses what calendars send, and it
            // resolves host names with the system's glibc (docs/decisions.md §49).
            dependencies: [
                "TetherCommandSupport", "Tether", "TetherOAuth", "CMallocTuning", .httpTypes, .logging,
            ]
        ),
        // glibc's `mallopt`, which the Glibc module does not export, for `tether-calendar`.
        .target(name: "CMallocTuning"),
        // A helper process for the stores' crash and cross-process tests (see Tests/TetherTests/VaultCrashTests.swift
        // and Tests/TetherKeychainTests/KeychainLeaseProcessTests.swift).
        .executableTarget(
            name: "TetherStoreProbe",
            dependencies: [
                "Tether",
                "TetherTesting",
                "TetherKeychain",
                "TetherPostgres",
                .target(name: "KeychainSimulator", condition: .when(platforms: nonApplePlatforms)),
                .target(name: "SecItemShim", condition: .when(platforms: nonApplePlatforms)),
                .postgresNIO,
                .logging,
            ],
            path: "Tests/Helpers/TetherStoreProbe"
        ),

        // The fuzz targets (Scripts/fuzz.sh, docs/reliability.md). The normal build makes a tool that replays
        // corpus files through them; Scripts/fuzz.sh builds them with libFuzzer and the address sanitizer.
        .executableTarget(
            name: "TetherFuzz",
            dependencies: ["Tether", "TetherOAuth", "TetherJWT", "TetherCalendar", .httpTypes],
            path: "Fuzz/TetherFuzz"
        ),

        // MARK: Examples (built by CI; see Examples/*/README.md)
        .executableTarget(
            name: "SignInAndCall",
            dependencies: [
                "Tether",
                "TetherOAuth",
                "TetherURLSession",
                .httpTypes,
                .httpTypesFoundation,
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
                .hummingbird,
            ],
            path: "Examples/ProtectedService",
            exclude: ["README.md"]
        ),
        .executableTarget(
            name: "WebhookReceiver",
            dependencies: [
                "TetherPostgres",
                .hummingbird,
                .httpTypes,
            ],
            path: "Examples/WebhookReceiver",
            exclude: ["README.md"]
        ),

        // MARK: Test support shared by the test targets (not products)
        .target(
            name: "TetherTestSupport",
            dependencies: ["Tether", .httpTypes],
            path: "Tests/Support/TetherTestSupport"
        ),
        .target(
            name: "JWTTestSupport",
            dependencies: [
                "Tether",
                "TetherOAuth",
                "TetherJWT",
                "TetherTesting",
                .crypto,
                .jwtKit,
                .httpTypes,
                .logging,
                .inMemoryLogging,
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
                .httpTypes,
            ],
            path: "Tests/Support/SignInTestSupport"
        ),

        .target(
            name: "ProviderTestSupport",
            dependencies: [
                "Tether",
                "TetherOAuth",
                "TetherTesting",
                "TetherURLSession",
                "TetherDevProvider",
                .hummingbird,
                .logging,
            ],
            path: "Tests/Support/ProviderTestSupport"
        ),

        // MARK: Tests
        .testTarget(
            name: "TetherTests",
            dependencies: [
                "Tether",
                "TetherTesting",
                "TetherTestSupport",
                .crypto,
                .logging,
                .inMemoryLogging,
                .target(name: "BackgroundTasksShim", condition: .when(platforms: platformsWithoutBackgroundTasks)),
            ]
        ),
        .testTarget(
            name: "TetherOAuthTests",
            dependencies: [
                "Tether",
                "TetherOAuth",
                "TetherTesting",
                "TetherTestSupport",
                .target(name: "AuthenticationServicesShim", condition: .when(platforms: nonApplePlatforms)),
                .httpTypes,
                .crypto,
                .logging,
                .inMemoryLogging,
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
                .httpTypes,
                .crypto,
                .jwtKit,
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
                .hummingbird,
                .hummingbirdTesting,
                .httpTypes,
                .nioCore,
            ]
        ),
        .testTarget(
            name: "TetherTransportTests",
            dependencies: [
                "Tether",
                "TetherURLSession",
                "TetherAsyncHTTPClient",
                "TetherDevProvider",
                .asyncHTTPClient,
                .httpTypes,
                .nioCore,
                .nioHTTP1,
            ]
        ),
        .testTarget(
            name: "TetherCLITests",
            dependencies: [
                "TetherCLI",
                "TetherCommandSupport",
                // `tether calendar sync`'s own process, which the launcher runs (LauncherCalendarSyncTests).
                "TetherCalendarTool",
                // The `tether` launcher its command tests run (it runs `tether-cli` beside it).
                "TetherLauncher",
                "SignInAndCall",
                "WebhookReceiver",
                "Tether",
                "TetherPostgres",
                "TetherOAuth",
                "TetherURLSession",
                "TetherAsyncHTTPClient",
                "TetherDevProvider",
                "TetherTestSupport",
                "SignInTestSupport",
                "ProviderTestSupport",
                .httpTypes,
                .hummingbird,
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
                "ProviderTestSupport",
                .hummingbird,
                .httpTypes,
                .nioCore,
                .logging,
            ]
        ),
        // Against django-oauth-toolkit on 127.0.0.1 (Scripts/conformance.sh); skipped without it.
        .testTarget(
            name: "TetherConformanceTests",
            dependencies: [
                // The `tether` and `tether-cli` binaries its command tests run.
                "TetherCLI",
                "TetherLauncher",
                "Tether",
                "TetherOAuth",
                "TetherJWT",
                "TetherURLSession",
                "TetherTestSupport",
                .httpTypes,
                .logging,
            ]
        ),
        .testTarget(
            name: "TetherDevProviderTests",
            dependencies: [
                "TetherDevProvider",
                .hummingbird,
                .hummingbirdTesting,
                .httpTypes,
                .jwtKit,
                .logging,
            ]
        ),
        .testTarget(
            name: "TetherServiceLifecycleTests",
            dependencies: [
                "Tether",
                "TetherServiceLifecycle",
                "TetherTesting",
                .serviceLifecycle,
                .serviceLifecycleTestKit,
                .logging,
            ]
        ),
        .testTarget(
            name: "TetherPostgresTests",
            dependencies: [
                "Tether",
                "TetherPostgres",
                "TetherTesting",
                "TetherTestSupport",
                "ProviderTestSupport",
                "TetherDevProvider",
                "TetherOAuth",
                "TetherURLSession",
                .postgresNIO,
                .logging,
                .hummingbird,
                .httpTypes,
                .serviceLifecycle,
                .metrics,
                .metricsTestKit,
            ]
        ),
        .testTarget(
            name: "TetherKeychainTests",
            dependencies: [
                "Tether",
                "TetherKeychain",
                "TetherTesting",
                "TetherTestSupport",
                .target(name: "KeychainSimulator", condition: .when(platforms: nonApplePlatforms)),
                .target(name: "SecItemShim", condition: .when(platforms: nonApplePlatforms)),
                .target(name: "LocalAuthenticationShim", condition: .when(platforms: nonApplePlatforms)),
                .inMemoryLogging,
            ]
        ),

        // MARK: Calendar connections
        .target(
            name: "TetherCalendar",
            dependencies: [
                "Tether",
                "TetherFlights",
                .httpTypes,
                .logging,
                .target(name: "EventKitShim", condition: .when(platforms: platformsWithoutEventKit)),
            ]
        ),
        // EventKit's names, so that `AppleCalendarSource` compiles where EventKit does not exist, with an
        // in-memory event store that only this package's tests fill. Not a product.
        .target(name: "EventKitShim"),
        .testTarget(
            name: "TetherCalendarTests",
            dependencies: [
                "Tether",
                "TetherCalendar",
                "TetherFlights",
                "TetherOAuth",
                "TetherTesting",
                "TetherURLSession",
                "TetherDevProvider",
                "ProviderTestSupport",
                .target(name: "EventKitShim", condition: .when(platforms: platformsWithoutEventKit)),
                .httpTypes,
                .logging,
                .hummingbird,
            ]
        ),

        // MARK: Flight detection (Foundation only: no dependency, no Tether type)
        .target(
            name: "TetherFlights",
            exclude: ["Data/LICENSE-DATA.md"],
            resources: [.copy("Resources/airports.tsv")]
        ),
        .testTarget(
            name: "TetherFlightsTests",
            dependencies: ["TetherFlights", .product(name: "Crypto", package: "swift-crypto")],
            resources: [.copy("Fixtures")]
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

/// The packages' products, named once. Those an app does not need are used only with their trait enabled.
extension Target.Dependency {
    static let httpTypes = Target.Dependency.product(name: "HTTPTypes", package: "swift-http-types")
    static let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
    static let crypto = Target.Dependency.product(name: "Crypto", package: "swift-crypto")
    static let inMemoryLogging = Target.Dependency.product(name: "InMemoryLogging", package: "swift-log")
    static let httpTypesFoundation = Target.Dependency.product(name: "HTTPTypesFoundation", package: "swift-http-types")

    static let jwtKit = heavy("JWTKit", "jwt-kit", traits: ["JWT"])
    static let hummingbird = heavy("Hummingbird", "hummingbird", traits: ["Hummingbird"])
    static let hummingbirdTesting = heavy("HummingbirdTesting", "hummingbird", traits: ["Hummingbird"])
    static let asyncHTTPClient = heavy("AsyncHTTPClient", "async-http-client", traits: ["AsyncHTTPClient"])
    static let nioCore = heavy("NIOCore", "swift-nio", traits: ["AsyncHTTPClient", "Hummingbird"])
    static let nioPosix = heavy("NIOPosix", "swift-nio", traits: ["AsyncHTTPClient", "Hummingbird"])
    static let nioHTTP1 = heavy("NIOHTTP1", "swift-nio", traits: ["AsyncHTTPClient", "Hummingbird"])
    static let serviceLifecycle = heavy("ServiceLifecycle", "swift-service-lifecycle", traits: ["ServiceLifecycle"])
    static let serviceLifecycleTestKit = heavy(
        "ServiceLifecycleTestKit",
        "swift-service-lifecycle",
        traits: ["ServiceLifecycle"]
    )
    static let postgresNIO = heavy("PostgresNIO", "postgres-nio", traits: ["Postgres"])
    static let metrics = heavy("Metrics", "swift-metrics", traits: ["Postgres"])
    static let metricsTestKit = heavy("MetricsTestKit", "swift-metrics", traits: ["Postgres"])
    static let argumentParser = heavy("ArgumentParser", "swift-argument-parser", traits: ["CLI"])

    /// A product used only when one of `traits` is enabled.
    static func heavy(_ name: String, _ package: String, traits: Set<String>) -> Target.Dependency {
        .product(name: name, package: package, condition: .when(traits: traits))
    }
}

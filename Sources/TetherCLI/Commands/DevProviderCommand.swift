import ArgumentParser
import Foundation
import Logging
import TetherCommandSupport
import TetherDevProvider

struct DevProviderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dev-provider",
        abstract: "Run the development OAuth 2.0 / OpenID Connect provider in the foreground.",
        discussion: """
            Serves, on 127.0.0.1, discovery, a sign-in and consent page, the token endpoint (code + PKCE, \
            refresh with rotation and reuse detection), revocation, the device flow with a verification page, \
            userinfo, JWKS and a protected /resource. It signs in the users ada (password lovelace) and grace \
            (password hopper) for the public client tether-dev-client, which accepts loopback redirects on any \
            port. It runs until interrupted.

            Calendars: each user's seeded calendars (recurring, all-day, cancelled events in several time zones, \
            flights among them) through Google Calendar API v3 at /calendar/v3 (users/me/calendarList, \
            calendars/ID/events with paging and syncToken) and Microsoft Graph at /v1.0 (me/calendars, \
            me/calendarView, me/calendars/ID/calendarView, me/calendarView/delta). Tokens need the scope \
            https://www.googleapis.com/auth/calendar.readonly or Calendars.Read.

            Faults (repeatable --fault), for trying how clients cope:
              latency:ENDPOINT=MS      delay every request to ENDPOINT by MS
              error:ENDPOINT=N         the next N requests answer 503
              rate-limit:ENDPOINT=N    the next N answer 429, Retry-After: 1
              drop:ENDPOINT=N          the next N connections close unanswered
              drop-answer:ENDPOINT=N   the next N requests take effect (a refresh
                                       rotates its token), then their
                                       connections close unanswered
              random:ENDPOINT=PERCENT  PERCENT of the requests get a fault drawn
                                       at random: a 5xx, a 429, a dropped
                                       connection, a dropped answer or up to
                                       1.5 s of latency (seeded by --fault-seed,
                                       so a run can be repeated)
              skew=SECONDS             issued JWTs carry times off by SECONDS
              interaction-required=N   the next N refreshes need interaction
            ENDPOINT is one of discovery, jwks, authorize, token, revoke, device_authorization, device, userinfo, \
            resource, google_calendar, graph_calendar; the calendar endpoints answer faults in their API's \
            error shapes.

            The admin API under /admin/ (faults, counters, tokens for tests) needs the header \
            X-Tether-Admin with the admin key: --admin-key, else TETHER_DEV_ADMIN_KEY, else a random key printed \
            at start. The provider listens only on 127.0.0.1.

            EXAMPLES
              tether dev-provider
              tether dev-provider --port 0 --access-token-lifetime 30 --jwt-access-tokens
              tether dev-provider --fault error:token=3 --fault latency:token=800
              tether dev-provider --access-token-lifetime 2 --reuse-grace-period 60 \\
                  --fault random:token=30
            """
    )

    @Option(help: "The port on 127.0.0.1; 0 picks a free one.")
    var port: Int = 8123

    @Option(help: "Access token lifetime in seconds.")
    var accessTokenLifetime: Int = 3600

    @Flag(
        inversion: .prefixedNo,
        help: "Whether refreshes return a new refresh token (reuse of an old one revokes the grant)."
    )
    var rotateRefreshTokens = true

    @Option(help: "Seconds after a rotation during which the old refresh token still gets the same answer.")
    var reuseGracePeriod: Int = 0

    @Option(help: "Response shapes of standard, google, microsoft, firebase, apple or github.")
    var dialect: String = "standard"

    @Flag(help: "Issue RFC 9068 JWT access tokens instead of opaque ones.")
    var jwtAccessTokens = false

    @Option(help: "A fault to inject (see above); repeatable.")
    var fault: [String] = []

    @Option(help: "The seed of the random faults.")
    var faultSeed: UInt64 = 1

    @Option(
        help:
            "The key the admin API expects in X-Tether-Admin; visible to other users in the process list, so prefer TETHER_DEV_ADMIN_KEY. Default: a random key, printed at start."
    )
    var adminKey: String?

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535") }
        guard accessTokenLifetime > 0 else { throw ValidationError("--access-token-lifetime must be above 0") }
        guard reuseGracePeriod >= 0 else { throw ValidationError("--reuse-grace-period must be 0 or more") }
        if #available(macOS 14, iOS 17, tvOS 17, visionOS 1, *) {
            _ = try Self.dialect(dialect)
            _ = try Self.faults(fault, seed: faultSeed)
        }
    }

    func run() async throws {
        guard #available(macOS 14, iOS 17, tvOS 17, visionOS 1, *) else {
            throw CLIFailure(.configuration, "The development provider needs macOS 14 or later")
        }
        var configuration = DevProvider.Configuration(port: port)
        configuration.accessTokenLifetime = .seconds(accessTokenLifetime)
        configuration.refreshTokenRotation = rotateRefreshTokens
        configuration.reuseGracePeriod = .seconds(reuseGracePeriod)
        configuration.dialect = try Self.dialect(dialect)
        configuration.accessTokenFormat = jwtAccessTokens ? .jwt : .opaque
        configuration.faults = try Self.faults(fault, seed: faultSeed)
        let environmentKey = ProcessInfo.processInfo.environment["TETHER_DEV_ADMIN_KEY"].flatMap {
            $0.isEmpty ? nil : $0
        }
        if let key = adminKey ?? environmentKey { configuration.adminKey = key }
        var logger = Logger(label: "tether.dev-provider", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = global.verbose ? .debug : .notice
        let running: RunningDevProvider
        do {
            running = try await DevProvider(configuration, logger: logger).start()
        } catch {
            throw CLIFailure(
                .unavailable,
                "Could not listen on 127.0.0.1:\(port) (\(error))",
                fix: "Is another provider running? Pick another port with --port, or 0 for any free one"
            )
        }
        let terminal = Terminal()
        terminal.out("Issuer:    \(running.issuer.absoluteString)")
        if configuration.dialect == .github {
            terminal.out(
                "GitHub:    tether login github --issuer \(running.issuer.absoluteString) --client-id tether-dev-client"
            )
        } else {
            terminal.out("Discovery: \(running.url("/.well-known/openid-configuration").absoluteString)")
        }
        terminal.out("Client id: tether-dev-client (public, PKCE S256, loopback redirects on any port)")
        terminal.out("User:      ada / lovelace")
        terminal.out("Admin key: \(running.adminKey) (header X-Tether-Admin on /admin/)")
        terminal.out("Sign in:   tether login dev\(port == 8123 ? "" : " --issuer \(running.issuer.absoluteString)")")
        // Serve until the process is interrupted.
        while !Task.isCancelled { try await Task.sleep(for: .seconds(3600)) }
        await running.stop()
    }

    @available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
    static func dialect(_ name: String) throws -> DevProvider.Dialect {
        switch name {
        case "standard": .standard
        case "google": .google
        case "microsoft": .microsoft
        case "firebase": .firebase
        case "apple": .apple
        case "github": .github
        default: throw ValidationError("--dialect is one of standard, google, microsoft, firebase, apple, github")
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
    static func faults(_ specifications: [String], seed: UInt64 = 1) throws -> DevProvider.Faults {
        var faults = DevProvider.Faults()
        for specification in specifications {
            let parts = specification.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let count = Int(parts[1]), count >= 0 || parts[0] == "skew" else {
                throw ValidationError("--fault '\(specification)' is not KIND[:ENDPOINT]=NUMBER")
            }
            let kind = parts[0].split(separator: ":", maxSplits: 1).map(String.init)
            func endpoint() throws -> DevProvider.Endpoint {
                let names = DevProvider.Endpoint.all.map(\.rawValue)
                guard kind.count == 2, names.contains(kind[1]) else {
                    throw ValidationError(
                        "--fault '\(specification)' needs an endpoint: \(names.joined(separator: ", "))"
                    )
                }
                return DevProvider.Endpoint(kind[1])
            }
            switch kind[0] {
            case "latency": faults.latency[try endpoint()] = .milliseconds(count)
            case "error": faults.serverErrors[try endpoint()] = count
            case "rate-limit": faults.rateLimits[try endpoint()] = count
            case "drop": faults.droppedConnections[try endpoint()] = count
            case "drop-answer": faults.droppedAnswers[try endpoint()] = count
            case "random":
                guard count <= 100 else { throw ValidationError("--fault '\(specification)': at most 100 percent") }
                var random = faults.random ?? DevProvider.RandomFaults(rate: 0, endpoints: [], seed: seed)
                random.rate = Double(count) / 100
                random.endpoints.insert(try endpoint())
                faults.random = random
            case "skew": faults.clockSkew = .seconds(count)
            case "interaction-required": faults.interactionRequiredRefreshes = count
            default:
                throw ValidationError(
                    "--fault kinds are latency, error, rate-limit, drop, drop-answer, random, skew, "
                        + "interaction-required; not '\(kind[0])'"
                )
            }
        }
        return faults
    }
}

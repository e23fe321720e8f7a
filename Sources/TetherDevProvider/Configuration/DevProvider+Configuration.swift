public import Foundation

@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension DevProvider {
    /// Everything that shapes a ``DevProvider``: address, clients, users, lifetimes, refresh-token
    /// policy, response dialect and initial faults.
    public struct Configuration: Sendable {
        /// Host to bind; also the host of the issuer. Defaults to `127.0.0.1`. Only loopback addresses
        /// (`127.0.0.0/8`, `::1`, `localhost`) are accepted unless ``allowNonLoopbackHost`` is set.
        public var host: String
        /// Lets ``host`` be an address other hosts can reach. Off by default: the provider signs in anyone
        /// with the built-in passwords and its admin API mints tokens.
        public var allowNonLoopbackHost: Bool
        /// Port to bind; `0` picks a free port. Defaults to `0`.
        public var port: Int
        /// A fixed issuer identifier. `nil` (the default) means `http://<host>:<bound port>`.
        public var issuer: URL?
        /// Registered clients. Defaults to ``ClientRegistration/defaultClient``.
        public var clients: [ClientRegistration]
        /// Users who can sign in. Defaults to ``User/ada`` and ``User/grace``.
        public var users: [User]
        /// Lifetime of access tokens (`expires_in`). Defaults to 3600 s.
        public var accessTokenLifetime: Duration
        /// Lifetime of ID tokens (`exp - iat`). Defaults to 3600 s.
        public var idTokenLifetime: Duration
        /// Lifetime of authorization codes (RFC 6749 §4.1.2). Defaults to 600 s.
        public var authorizationCodeLifetime: Duration
        /// How long a refresh token stays usable after it was issued; `nil` (the default) means
        /// until revoked. An expired refresh token answers the dialect's "expired/inactive" error.
        public var refreshTokenLifetime: Duration?
        /// Send `refresh_token_expires_in` (the whole ``refreshTokenLifetime``) with every refresh token, as Google
        /// does for time-limited access. Off by default; the GitHub dialect always sends it.
        public var announcesRefreshTokenLifetime = false
        /// How long a refresh token may stay unused (not presented in a refresh) before it is refused with the
        /// dialect's "expired/inactive" error, as Microsoft (90 days) and Google (6 months) do; `nil` (the default)
        /// means no limit. A refresh is a use: it resets the time, for the same token (without rotation) or by
        /// issuing a new one.
        public var refreshTokenInactivityLimit: Duration?
        /// Issue a new refresh token on every refresh and spend the old one (RFC 9700 §4.14.2).
        /// Defaults to `true`. The Google, Apple and Firebase dialects never rotate.
        public var refreshTokenRotation: Bool
        /// Presenting a spent refresh token revokes the whole grant family. Defaults to `true`.
        public var reuseDetection: Bool
        /// Within this period after a rotation, re-presenting the just-spent refresh token returns
        /// the same new tokens again instead of counting as reuse. Defaults to zero.
        public var reuseGracePeriod: Duration
        /// When a refresh token is issued. Defaults to ``RefreshTokenIssuance/withOfflineAccess``.
        public var refreshTokenIssuance: RefreshTokenIssuance
        /// Lifetime of device codes (RFC 8628). Defaults to 600 s.
        public var deviceCodeLifetime: Duration
        /// Minimum polling interval for device codes. Defaults to 5 s.
        public var devicePollingInterval: Duration
        /// Opaque random access tokens or RFC 9068 JWTs. Defaults to ``AccessTokenFormat/opaque``.
        public var accessTokenFormat: AccessTokenFormat
        /// Which provider's response and error shapes to imitate. Defaults to ``Dialect/standard``.
        public var dialect: Dialect
        /// Faults active from the start; change them later through ``DevProvider/Admin``.
        public var faults: Faults
        /// Behaviours of other servers to imitate. Defaults to none.
        public var interoperability = Interoperability()
        /// How the protected resource refuses an access token; ``ResourceErrorStyle/standard`` by default.
        public var resourceErrors = ResourceErrorStyle.standard
        /// The value the `X-Tether-Admin` header must carry on `/admin/...` requests. A fresh random key for
        /// every configuration by default (see ``makeAdminKey()``); read it from ``DevProvider/configuration``
        /// or ``RunningDevProvider/adminKey``.
        public var adminKey: String
        /// The API key `POST /v1/token?key=…` accepts in the Firebase dialect.
        public var firebaseAPIKey: String
        /// The project ID reported by the Firebase dialect (`project_id`, ID token `aud`).
        public var firebaseProjectID: String
        /// The wall-clock source for expiry and token timestamps. Defaults to the system clock.
        public var now: @Sendable () -> Date

        /// Creates a configuration; every parameter has a working default.
        public init(
            host: String = "127.0.0.1",
            port: Int = 0,
            issuer: URL? = nil,
            clients: [ClientRegistration] = [.defaultClient],
            users: [User] = [.ada, .grace],
            accessTokenLifetime: Duration = .seconds(3600),
            idTokenLifetime: Duration = .seconds(3600),
            authorizationCodeLifetime: Duration = .seconds(600),
            refreshTokenLifetime: Duration? = nil,
            refreshTokenRotation: Bool = true,
            reuseDetection: Bool = true,
            reuseGracePeriod: Duration = .zero,
            refreshTokenIssuance: RefreshTokenIssuance = .withOfflineAccess,
            deviceCodeLifetime: Duration = .seconds(600),
            devicePollingInterval: Duration = .seconds(5),
            accessTokenFormat: AccessTokenFormat = .opaque,
            dialect: Dialect = .standard,
            faults: Faults = Faults(),
            adminKey: String = Configuration.makeAdminKey(),
            firebaseAPIKey: String = "tether-dev-api-key",
            firebaseProjectID: String = "tether-dev",
            now: @escaping @Sendable () -> Date = { Date() },
            allowNonLoopbackHost: Bool = false
        ) {
            self.host = host
            self.allowNonLoopbackHost = allowNonLoopbackHost
            self.port = port
            self.issuer = issuer
            self.clients = clients
            self.users = users
            self.accessTokenLifetime = accessTokenLifetime
            self.idTokenLifetime = idTokenLifetime
            self.authorizationCodeLifetime = authorizationCodeLifetime
            self.refreshTokenLifetime = refreshTokenLifetime
            self.refreshTokenRotation = refreshTokenRotation
            self.reuseDetection = reuseDetection
            self.reuseGracePeriod = reuseGracePeriod
            self.refreshTokenIssuance = refreshTokenIssuance
            self.deviceCodeLifetime = deviceCodeLifetime
            self.devicePollingInterval = devicePollingInterval
            self.accessTokenFormat = accessTokenFormat
            self.dialect = dialect
            self.faults = faults
            self.adminKey = adminKey
            self.firebaseAPIKey = firebaseAPIKey
            self.firebaseProjectID = firebaseProjectID
            self.now = now
        }

        /// A random admin key: 32 random bytes, base64url-encoded.
        public static func makeAdminKey() -> String { RandomToken.make() }

        /// Throws unless ``host`` is a loopback address or ``allowNonLoopbackHost`` is set.
        func validateHost() throws {
            guard !allowNonLoopbackHost, !Self.isLoopback(host) else { return }
            throw DevProviderError.nonLoopbackHost.with(
                message: "The development provider refuses to bind '\(host)', which is not a loopback address; "
                    + "set allowNonLoopbackHost to serve other hosts"
            )
        }

        /// Whether `host` names the loopback interface: `localhost`, `::1` or an address in `127.0.0.0/8`.
        static func isLoopback(_ host: String) -> Bool {
            let name = host.lowercased()
            if ["localhost", "::1", "[::1]"].contains(name) { return true }
            let octets = name.split(separator: ".", omittingEmptySubsequences: false)
            return octets.count == 4 && octets[0] == "127"
                && octets.allSatisfy { $0.count <= 3 && UInt8($0) != nil }
        }
    }
}

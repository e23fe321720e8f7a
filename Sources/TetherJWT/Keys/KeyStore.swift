package import Foundation
package import HTTPTypes
package import Logging
package import Tether
import TetherOAuth

/// Fetches an issuer's keys lazily over HTTPS (or plain HTTP to a loopback host), caches them for their
/// `Cache-Control` lifetime (at most ``CacheLifetime/maximum``), and re-fetches when a token names an unknown key:
/// at once the first time a `kid` is missed, then at most once per minimum interval.
///
/// Rules:
/// - The first lookup fetches. A fresh set that has the `kid` answers without a request.
/// - A lookup that misses (unknown `kid`) or finds the set expired fetches again, unless the last fetch started
///   less than `minimumRefetchInterval` ago; then it uses what it has (a stale set that has the `kid`), or fails
///   with `unknownKey` (there is a set) or `keysUnavailable` (the last fetch failed).
/// - Except for a `kid` that the set lacks (a provider that has just rotated its key: docs/decisions.md §32): it
///   fetches again at once, unless that same `kid` started a fetch within `minimumRefetchInterval`, or
///   ``maximumFetchesPerInterval`` fetches started within it. Tokens naming made-up keys (sent to a resource
///   server) therefore cost at most that many requests to the key endpoint per interval, however many `kid`s
///   they name.
/// - All lookups that need a fetch while one is running wait for that one. A waiter that is cancelled stops
///   waiting; the fetch goes on for the others.
/// - A failed fetch keeps the previous set: a key it has still verifies.
package actor KeyStore {
    private struct Cached {
        var keys: KeySet
        var expiresAt: Duration
    }

    private let source: SigningKeySource
    private let transport: any HTTPTransport
    private let elapsed: @Sendable () -> Duration
    private let minimumRefetchInterval: Duration
    private let defaultCacheLifetime: Duration
    private let logger: Logger

    /// The most fetches that start within one `minimumRefetchInterval`, counting those for unknown `kid`s.
    private static let maximumFetchesPerInterval = 4

    private var cached: Cached?
    private var lastFetchStart: Duration?
    /// The fetches started within the last `minimumRefetchInterval`, with the `kid` whose lookup started each
    /// (`""` for a token without one); at most ``maximumFetchesPerInterval`` entries.
    private var recentFetches: [(keyID: String, startedAt: Duration)] = []
    private var lastFailure: IDTokenError?
    private var inFlight: SharedFlight<KeySet>?

    /// The number of fetches started; for tests and diagnostics.
    package private(set) var fetchCount = 0

    /// Creates a store.
    /// - Parameters:
    ///   - source: Where the keys are published.
    ///   - transport: How they are fetched.
    ///   - clock: The monotonic clock that times cache lifetimes and the re-fetch interval.
    ///   - minimumRefetchInterval: The shortest time between two fetches.
    ///   - defaultCacheLifetime: How long keys are kept when the response has no `max-age`.
    ///   - logger: Where fetches are logged, at debug level.
    package init(
        source: SigningKeySource,
        transport: any HTTPTransport,
        clock: any Clock<Duration>,
        minimumRefetchInterval: Duration,
        defaultCacheLifetime: Duration,
        logger: Logger
    ) {
        self.source = source
        self.transport = transport
        self.elapsed = Self.stopwatch(clock)
        self.minimumRefetchInterval = minimumRefetchInterval
        self.defaultCacheLifetime = defaultCacheLifetime
        self.logger = logger
    }

    private static func stopwatch<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    /// The keys that may have signed a token with `keyID`.
    /// - Parameter keyID: The token's `kid`.
    /// - Returns: One or more candidate keys.
    /// - Throws: ``TetherOAuth/IDTokenError/unknownKey``, ``TetherOAuth/IDTokenError/keysUnavailable``,
    ///   ``TetherOAuth/IDTokenError/insecureKeySource`` (a plain `http` URL to a host that is not loopback), or
    ///   `CancellationError` when the calling task is cancelled while it waits for a fetch.
    package func keys(for keyID: String?) async throws -> [VerificationKey] {
        let now = elapsed()
        if let cached, now < cached.expiresAt, let keys = cached.keys.keys(for: keyID) { return keys }

        let flight: SharedFlight<KeySet>
        if let inFlight {
            flight = inFlight
        } else if let lastFetchStart, now - lastFetchStart < minimumRefetchInterval {
            if let keys = cached?.keys.keys(for: keyID) { return keys }
            guard cached != nil, mayFetchAtOnce(for: keyID, at: now) else {
                logger.debug(
                    "Signing key not found; re-fetch rate-limited",
                    metadata: ["jwt.kid": "\(UntrustedText.sanitized(keyID ?? ""))", "jwt.keys": "\(source)"]
                )
                throw cached == nil ? (lastFailure ?? IDTokenError.keysUnavailable) : IDTokenError.unknownKey
            }
            logger.debug(
                "Signing key not found; fetching the keys again at once",
                metadata: ["jwt.kid": "\(UntrustedText.sanitized(keyID ?? ""))", "jwt.keys": "\(source)"]
            )
            flight = startFetch(at: now, for: keyID)
        } else {
            flight = startFetch(at: now, for: keyID)
        }

        let fetched: KeySet
        do {
            fetched = try await flight.value()
        } catch let error as IDTokenError {
            if let keys = cached?.keys.keys(for: keyID) { return keys }
            throw error
        }
        guard let keys = fetched.keys(for: keyID) else {
            logger.debug(
                "Signing key not found after fetch",
                metadata: ["jwt.kid": "\(UntrustedText.sanitized(keyID ?? ""))"]
            )
            throw IDTokenError.unknownKey
        }
        return keys
    }

    /// Whether a lookup of `keyID`, which the cached set lacks, may fetch before `minimumRefetchInterval` has passed:
    /// the first time this `kid` is missed within the interval, and while fewer than ``maximumFetchesPerInterval``
    /// fetches started within it.
    private func mayFetchAtOnce(for keyID: String?, at now: Duration) -> Bool {
        forgetFetches(before: now - minimumRefetchInterval)
        return recentFetches.count < Self.maximumFetchesPerInterval
            && !recentFetches.contains { $0.keyID == (keyID ?? "") }
    }

    private func forgetFetches(before instant: Duration) {
        recentFetches.removeAll { $0.startedAt <= instant }
    }

    private func startFetch(at now: Duration, for keyID: String?) -> SharedFlight<KeySet> {
        let flight = SharedFlight<KeySet>()
        inFlight = flight
        lastFetchStart = now
        forgetFetches(before: now - minimumRefetchInterval)
        recentFetches.append((keyID ?? "", now))
        if recentFetches.count > Self.maximumFetchesPerInterval { recentFetches.removeFirst() }
        fetchCount += 1
        Task { await self.fetch(into: flight) }
        return flight
    }

    private func fetch(into flight: SharedFlight<KeySet>) async {
        let result: Result<(KeySet, Duration?), IDTokenError>
        do throws(IDTokenError) {
            result = .success(try await download())
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let (keys, lifetime)):
            let lifetime = lifetime ?? defaultCacheLifetime
            cached = Cached(keys: keys, expiresAt: elapsed() + lifetime)
            lastFailure = nil
            logger.debug(
                "Fetched signing keys",
                metadata: [
                    "jwt.keys": "\(source)", "jwt.key_count": "\(keys.count)",
                    "jwt.cache_seconds": "\(lifetime.components.seconds)",
                ]
            )
        case .failure(let error):
            lastFailure = error
            logger.debug(
                "Fetching signing keys failed",
                metadata: ["jwt.keys": "\(source)", "jwt.error": "\(error.message)"]
            )
        }
        if inFlight === flight { inFlight = nil }
        flight.resolve(result.map(\.0).mapError { $0 as any Error })
    }

    private func download() async throws(IDTokenError) -> (KeySet, Duration?) {
        guard let request = Self.request(for: source.url) else {
            throw IDTokenError.keysUnavailable.with(message: "The key set's URL is not an absolute HTTP URL")
        }
        // Keys fetched in the clear can be replaced by anyone on the path, who could then sign any token.
        guard request.scheme == "https" || LoopbackHost.contains(source.url.host ?? "") else {
            throw IDTokenError.insecureKeySource.with(
                message: "The signing keys at \(request.redactedTarget) would be fetched over plain HTTP; "
                    + "use https (plain http is allowed only to 127.0.0.1, ::1 or localhost)"
            )
        }
        logger.debug("Fetching signing keys", metadata: ["jwt.keys": "\(source)"])
        let response: HTTPResponse
        let body: Data
        do {
            (response, body) = try await transport.send(request, body: nil)
        } catch {
            throw IDTokenError.keysUnavailable.with(
                message: "The signing keys could not be fetched from \(request.redactedTarget)",
                cause: error
            )
        }
        guard response.status == .ok else {
            throw IDTokenError.keysUnavailable.with(
                message: "The key server \(request.redactedTarget) answered HTTP \(response.status.code)"
            )
        }
        let keys: KeySet
        do {
            switch source.format {
            case .jwks: keys = try await KeySet.jwks(from: body, logger: logger)
            case .x509Certificates: keys = try await KeySet.x509Certificates(from: body, logger: logger)
            }
        } catch {
            throw IDTokenError.keysUnavailable.with(
                message: "The key server \(request.redactedTarget) sent an unreadable key set",
                cause: error
            )
        }
        return (keys, CacheLifetime.of(response.headerFields))
    }

    /// A `GET` for `url`, or `nil` when it has no scheme or host.
    /// - Parameter url: The address.
    /// - Returns: The request.
    package static func request(for url: URL) -> HTTPRequest? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
            let host = components.percentEncodedHost, !host.isEmpty
        else { return nil }
        var authority = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        if let port = components.port { authority += ":\(port)" }
        var path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { path += "?\(query)" }
        var request = HTTPRequest(method: .get, scheme: scheme, authority: authority, path: path)
        request.headerFields[.accept] = "application/json"
        return request
    }
}

public import Foundation
import HTTPTypes
public import Logging
public import ServiceLifecycle
public import Tether

/// Sends a ``RefreshScheduler``'s events to an HTTPS endpoint, signed, retried, at least once.
///
/// Give it to the scheduler as its delegate and run it beside it:
///
/// ```swift
/// let webhook = try WebhookNotifier(
///     configuration: .init(url: URL(string: "https://hooks.example.com/tether")!, secret: WebhookSecret(secret)),
///     transport: AsyncHTTPClientTransport()
/// )
/// let scheduler = RefreshScheduler(store: store, refreshers: refreshers, delegate: webhook)
/// let group = ServiceGroup(
///     services: [client, webhook, scheduler],
///     gracefulShutdownSignals: [.sigterm],
///     logger: logger
/// )
/// ```
///
/// Each event is one `POST` of a JSON object — `id`, `type` (``RefreshScheduler/Event/Kind``), `tenant`,
/// `connection`, `provider`, `account` (masked, as ``Tether/Account``'s `description` shows it), `reason` (`code`
/// and `message`, or `null`), `recovered_from`, `ends_at` and `occurred_at` (ISO 8601) — and never a token. Headers:
/// `Tether-Signature` (``WebhookSignature``), `Idempotency-Key` and `Tether-Event-ID` (the event's identifier, the
/// same on every attempt and from every worker that reports the change).
///
/// - A `2xx` answer delivers the event. A `408`, `429` or `5xx` answer, or a failure below HTTP, is tried again
///   after ``Configuration/backoff``'s delay, or after `Retry-After` when the receiver sends one (up to the
///   backoff's `maximumRetryAfter`); other answers, and the last attempt, drop the event with a log line.
/// - Events wait in a queue of at most ``Configuration/queueLimit``; `refreshScheduler(didReport:)` only appends,
///   so a slow receiver never holds the scheduler's round. One event is sent at a time, in order.
/// - On graceful shutdown the queue is sent out for at most ``Configuration/shutdownGrace``; what is left then is
///   logged and dropped. The queue lives in memory: events of a process that dies are lost, and the scheduler of
///   the next process reports only changes it sees itself.
public final class WebhookNotifier: RefreshSchedulerDelegate, Service {
    /// Where and how events are sent.
    public struct Configuration: Sendable {
        /// The endpoint: `https`, or `http` to a loopback host (127.0.0.0/8, `::1`, `localhost`).
        public var url: URL
        /// The shared secret the body is signed with.
        public var secret: WebhookSecret
        /// Attempts and delays; by default 8 attempts, 1 second doubling up to 5 minutes, ±20 %, and a
        /// `Retry-After` of up to an hour.
        public var backoff: Backoff
        /// The most events waiting; a newer event is dropped (and logged) when the queue is full.
        public var queueLimit: Int
        /// How long graceful shutdown waits for the queue to be sent.
        public var shutdownGrace: Duration

        /// Creates a configuration.
        /// - Parameters:
        ///   - url: The endpoint.
        ///   - secret: The shared secret.
        ///   - backoff: Attempts and delays.
        ///   - queueLimit: The most events waiting (at least 1).
        ///   - shutdownGrace: How long graceful shutdown waits for the queue.
        public init(
            url: URL,
            secret: WebhookSecret,
            backoff: Backoff = Backoff(
                maximumAttempts: 8,
                initialDelay: .seconds(1),
                multiplier: 2,
                maximumDelay: .seconds(300),
                maximumRetryAfter: .seconds(3_600)
            ),
            queueLimit: Int = 1_000,
            shutdownGrace: Duration = .seconds(10)
        ) {
            self.url = url
            self.secret = secret
            self.backoff = backoff
            self.queueLimit = max(1, queueLimit)
            self.shutdownGrace = shutdownGrace
        }
    }

    /// What became of one event.
    package enum Delivery: Sendable, Hashable {
        /// A `2xx` answer, after this many attempts.
        case delivered(attempts: Int)
        /// Dropped after this many attempts.
        case dropped(attempts: Int)
    }

    let configuration: Configuration
    let transport: any HTTPTransport
    let clock: any Clock<Duration>
    let dateSource: DateSource
    let logger: Logger
    private let queue: AsyncStream<RefreshScheduler.Event>
    private let continuation: AsyncStream<RefreshScheduler.Event>.Continuation

    /// Creates a notifier.
    /// - Parameters:
    ///   - configuration: The endpoint, the secret, the retries.
    ///   - transport: How requests are sent (`AsyncHTTPClientTransport` on a server).
    ///   - clock: The clock of retry delays.
    ///   - dateSource: The wall clock of the signatures' timestamps.
    ///   - logger: Where it logs deliveries and drops (never the secret or a body).
    /// - Throws: ``Tether/TransportError/invalidRequest`` when the URL is neither `https` nor `http` to a loopback
    ///   host.
    public init(
        configuration: Configuration,
        transport: any HTTPTransport,
        clock: any Clock<Duration> = ContinuousClock(),
        dateSource: DateSource = .system,
        logger: Logger = .current
    ) throws {
        let scheme = configuration.url.scheme?.lowercased()
        let host = configuration.url.host ?? ""
        guard !host.isEmpty, scheme == "https" || (scheme == "http" && LoopbackHost.contains(host)) else {
            throw TransportError.invalidRequest.with(
                message: "A webhook URL must use https, or http to a loopback host"
            )
        }
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
        self.dateSource = dateSource
        self.logger = logger
        (queue, continuation) = AsyncStream.makeStream(
            of: RefreshScheduler.Event.self,
            bufferingPolicy: .bufferingOldest(configuration.queueLimit)
        )
    }

    /// Queues `event` for sending; returns at once.
    /// - Parameter event: The scheduler's event.
    public func refreshScheduler(didReport event: RefreshScheduler.Event) async {
        if case .dropped = continuation.yield(event) {
            logger.info(
                "Webhook queue full; event dropped",
                metadata: ["webhook.event_id": "\(event.id)", "webhook.type": "\(event.kind)"]
            )
        }
    }

    /// Sends queued events, one at a time, until graceful shutdown or cancellation; at graceful shutdown, sends
    /// what is queued for at most ``Configuration/shutdownGrace``.
    public func run() async throws {
        let continuation = self.continuation
        let clock = self.clock
        let grace = configuration.shutdownGrace
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in self.queue { _ = await self.deliver(event) }
            }
            group.addTask {
                // At graceful shutdown (or cancellation) the queue takes nothing more; what it holds is sent
                // until the grace ends, when the group's cancellation cuts the rest short.
                try? await gracefulShutdown()
                continuation.finish()
                try? await clock.sleep(for: grace)
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// Sends one event with its retries.
    @discardableResult
    package func deliver(_ event: RefreshScheduler.Event) async -> Delivery {
        var logger = self.logger
        logger[metadataKey: "webhook.event_id"] = "\(event.id)"
        logger[metadataKey: "webhook.type"] = "\(event.kind)"
        let body: Data
        do {
            body = try Self.body(event)
        } catch {
            logger.info("Webhook event could not be encoded; dropped", metadata: ["error": "\(error)"])
            return .dropped(attempts: 0)
        }
        var random = SystemRandomNumberGenerator()
        let backoff = configuration.backoff
        var attempt = 0
        while true {
            attempt += 1
            let retryAfter: Duration?
            do {
                let (response, _) = try await transport.send(request(for: event, body: body), body: body)
                if response.status.kind == .successful {
                    logger.debug("Webhook delivered", metadata: ["webhook.attempts": "\(attempt)"])
                    return .delivered(attempts: attempt)
                }
                let verdict = FailureClassifier.classify(response)
                guard verdict.isTransient else {
                    logger.info(
                        "Webhook refused; event dropped",
                        metadata: ["http.status": "\(response.status.code)", "webhook.attempts": "\(attempt)"]
                    )
                    return .dropped(attempts: attempt)
                }
                retryAfter = verdict.retryAfter
                logger.debug("Webhook answered with a failure", metadata: ["http.status": "\(response.status.code)"])
            } catch let error as TransportError {
                guard error != .cancelled, FailureClassifier.classify(error).isTransient else {
                    logger.info("Webhook could not be sent; event dropped", metadata: ["error": "\(error)"])
                    return .dropped(attempts: attempt)
                }
                retryAfter = nil
                logger.debug("Webhook could not be sent", metadata: ["error": "\(error)"])
            } catch {
                retryAfter = nil
                logger.debug("Webhook could not be sent", metadata: ["error": "\(error)"])
            }
            guard attempt < backoff.maximumAttempts,
                let delay = backoff.delay(afterAttempt: attempt, retryAfter: retryAfter, using: &random)
            else {
                logger.info("Webhook not delivered; event dropped", metadata: ["webhook.attempts": "\(attempt)"])
                return .dropped(attempts: attempt)
            }
            do {
                try await clock.sleep(for: delay)
            } catch {
                logger.info("Webhook retry cancelled; event dropped", metadata: ["webhook.attempts": "\(attempt)"])
                return .dropped(attempts: attempt)
            }
        }
    }

    /// The request of one attempt, signed now.
    func request(for event: RefreshScheduler.Event, body: Data) -> HTTPRequest {
        let url = configuration.url
        let port = url.port.map { ":\($0)" } ?? ""
        let host = url.host ?? ""
        let path = url.path.isEmpty ? "/" : url.path
        var request = HTTPRequest(
            method: .post,
            scheme: url.scheme,
            authority: (host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host) + port,
            path: path + (url.query.map { "?\($0)" } ?? "")
        )
        request.headerFields[.contentType] = "application/json"
        request.headerFields[.userAgent] = "tether-webhook/1"
        if let name = HTTPField.Name(WebhookSignature.headerName) {
            request.headerFields[name] = WebhookSignature.header(
                payload: body,
                secret: configuration.secret,
                timestamp: dateSource.now
            )
        }
        if let name = HTTPField.Name("Idempotency-Key") { request.headerFields[name] = event.id }
        if let name = HTTPField.Name("Tether-Event-ID") { request.headerFields[name] = event.id }
        return request
    }

    /// The JSON body: no token, the account masked.
    package static func body(_ event: RefreshScheduler.Event) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(Payload(event))
    }

    /// The body's fields.
    struct Payload: Encodable {
        struct Reason: Encodable {
            let code: String
            let message: String
        }

        let id: String
        let type: String
        let tenant: String
        let connection: String
        let provider: String
        let account: String
        let reason: Reason?
        let recoveredFrom: String?
        let endsAt: Date?
        let occurredAt: Date

        init(_ event: RefreshScheduler.Event) {
            id = event.id
            type = event.kind.rawValue
            tenant = event.tenant
            connection = event.connection.rawValue
            provider = event.account.providerID
            let shown = event.account.isUnknown ? "unknown account" : "no display identifier"
            account = event.account.maskedDisplayIdentifier ?? shown
            reason = event.reason.map { Reason(code: $0.code, message: $0.message) }
            recoveredFrom = event.recoveredFrom
            endsAt = event.endsAt
            occurredAt = event.occurredAt
        }

        enum CodingKeys: String, CodingKey {
            case id, type, tenant, connection, provider, account, reason
            case recoveredFrom = "recovered_from"
            case endsAt = "ends_at"
            case occurredAt = "occurred_at"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(type, forKey: .type)
            try container.encode(tenant, forKey: .tenant)
            try container.encode(connection, forKey: .connection)
            try container.encode(provider, forKey: .provider)
            try container.encode(account, forKey: .account)
            try container.encode(reason, forKey: .reason)
            try container.encode(recoveredFrom, forKey: .recoveredFrom)
            try container.encode(endsAt, forKey: .endsAt)
            try container.encode(occurredAt, forKey: .occurredAt)
        }
    }
}

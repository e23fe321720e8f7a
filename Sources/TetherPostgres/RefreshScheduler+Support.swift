import Foundation
import Metrics
import Tether

/// The scheduler's metrics, made on one factory.
struct SchedulerMetrics: Sendable {
    /// A class of refresh failure, the `class` dimension of `tether_scheduler_failures_total`.
    enum FailureClass: String {
        case needsSignIn = "needs_sign_in"
        case transient
        case storage
        case configuration
    }

    let factory: any MetricsFactory
    let lateness: Recorder
    let contended: Counter

    init(factory: any MetricsFactory) {
        self.factory = factory
        lateness = Recorder(label: "tether_scheduler_refresh_lateness_seconds", factory: factory)
        contended = Counter(label: "tether_scheduler_lease_contention_total", factory: factory)
    }

    /// Counts a refresh and records how long after the token became due it happened (negative: early).
    func refreshed(provider: String, lateness seconds: Double?) {
        Counter(label: "tether_scheduler_refreshes_total", dimensions: [("provider", provider)], factory: factory)
            .increment()
        if let seconds { lateness.record(seconds) }
    }

    func failure(provider: String, class failureClass: FailureClass) {
        Counter(
            label: "tether_scheduler_failures_total",
            dimensions: [("provider", provider), ("class", failureClass.rawValue)],
            factory: factory
        )
        .increment()
    }

    func contention() { contended.increment() }

    func rateLimited(provider: String) {
        Counter(label: "tether_scheduler_rate_limited_total", dimensions: [("provider", provider)], factory: factory)
            .increment()
    }
}

/// Token buckets and `Retry-After` pauses per provider, on the scheduler's clock.
package final class ProviderLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var refilledAt: Duration
        var pausedUntil: Duration?
    }

    private let elapsed: @Sendable () -> Duration
    private let limits: [String: RefreshScheduler.RateLimit]
    private let defaultLimit: RefreshScheduler.RateLimit?
    private let buckets = LockedState<[String: Bucket]>([:])

    package init(clock: any Clock<Duration>, configuration: RefreshScheduler.Configuration) {
        elapsed = Self.stopwatch(on: clock)
        limits = configuration.rateLimits
        defaultLimit = configuration.defaultRateLimit
    }

    private static func stopwatch(on clock: some Clock<Duration>) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    /// Takes one refresh from the provider's bucket: `false` when it is empty or the provider is paused.
    package func take(_ provider: String) -> Bool {
        let now = elapsed()
        let limit = limits[provider] ?? defaultLimit
        return buckets.withLock { buckets in
            var bucket = buckets[provider] ?? Bucket(tokens: Double(limit?.burst ?? 1), refilledAt: now)
            defer { buckets[provider] = bucket }
            if let pausedUntil = bucket.pausedUntil {
                guard now >= pausedUntil else { return false }
                bucket.pausedUntil = nil
            }
            guard let limit else { return true }
            let seconds = RefreshScheduler.seconds(now - bucket.refilledAt)
            bucket.tokens = min(Double(limit.burst), bucket.tokens + seconds * limit.refreshesPerSecond)
            bucket.refilledAt = now
            guard bucket.tokens >= 1 else { return false }
            bucket.tokens -= 1
            return true
        }
    }

    /// Takes no refresh for the provider for `duration` (its `Retry-After`).
    package func pause(_ provider: String, for duration: Duration) {
        let until = elapsed() + duration
        buckets.withLock { buckets in
            var bucket = buckets[provider] ?? Bucket(tokens: 0, refilledAt: elapsed())
            bucket.pausedUntil = max(bucket.pausedUntil ?? .zero, until)
            buckets[provider] = bucket
        }
    }
}

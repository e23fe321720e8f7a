public import Foundation
public import Tether

/// A clock that moves only when a test says so, with a wall clock that moves with it.
///
/// Sleeps suspend until ``advance(by:)`` passes their deadline and end early with `CancellationError` when
/// their task is cancelled. ``dateSource`` reads `startDate` plus the time advanced, so token expiry and
/// backoff move together.
public final class ManualClock: Clock, Sendable {
    /// An instant of a ``ManualClock``: the time advanced since it was created.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable {
        /// Time since the clock was created.
        public var offset: Duration

        /// Creates an instant.
        public init(offset: Duration) { self.offset = offset }

        /// This instant moved by `duration`.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }

        /// The duration from this instant to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }

        /// Orders instants.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
    }

    private let state = LockedState(State())
    private let startDate: Date

    /// Creates a clock.
    /// - Parameter startDate: The wall-clock date at offset zero; a fixed instant by default (2026-01-01).
    public init(startDate: Date = Date(timeIntervalSince1970: 1_767_225_600)) {
        self.startDate = startDate
    }

    /// The current instant.
    public var now: Instant { state.withLock { $0.now } }

    /// One nanosecond.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// The wall clock that moves with this clock.
    public var dateSource: DateSource {
        DateSource { [self] in self.date }
    }

    /// The current wall-clock date.
    public var date: Date { startDate.addingTimeInterval(now.offset.seconds) }

    /// The number of tasks sleeping on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Suspends until the clock reaches `deadline`.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let immediate = state.withLock { state -> Result<Void, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward and wakes every sleeper whose deadline has passed.
    /// - Parameter duration: How far to move.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Waits (yielding, without real sleeps) until at least `count` tasks sleep on this clock.
    /// - Parameters:
    ///   - count: The number of sleepers to wait for.
    ///   - maximumYields: Gives up after this many yields.
    /// - Returns: Whether the sleepers arrived.
    @discardableResult
    public func waitForSleepers(_ count: Int = 1, maximumYields: Int = 1_000_000) async -> Bool {
        for _ in 0..<maximumYields {
            if sleeperCount >= count { return true }
            await Task.yield()
        }
        return sleeperCount >= count
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: TimeInterval {
        TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
    }
}

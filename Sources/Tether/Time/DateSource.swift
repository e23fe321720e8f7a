public import Foundation

/// Where Tether reads wall-clock time: for token expiry, which is an absolute instant.
///
/// Sleeping, backoff and timeouts use a monotonic `Clock<Duration>` instead. Inject ``constant(_:)`` or the
/// `ManualClock` of the `TetherTesting` module in tests; only an application's composition root relies on
/// ``system``.
public struct DateSource: Sendable {
    private let read: @Sendable () -> Date

    /// Creates a source from a closure.
    /// - Parameter now: Returns the current date.
    public init(_ now: @escaping @Sendable () -> Date) { self.read = now }

    /// The current date.
    public var now: Date { read() }

    /// The system's wall clock.
    public static let system = DateSource { Date() }

    /// A source that always answers `date`.
    /// - Parameter date: The fixed date.
    /// - Returns: A source stuck at `date`.
    public static func constant(_ date: Date) -> DateSource { DateSource { date } }
}

public import Foundation

@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension DevProvider {
    /// An event in one of the provider's calendars.
    ///
    /// The Google Calendar and Microsoft Graph endpoints render the same events in their own
    /// shapes; the admin API adds, changes and deletes them.
    public struct CalendarEvent: Sendable, Equatable {
        /// The event ID, the same in both APIs. Empty when adding lets the provider pick one.
        public var id: String
        /// The title (Google `summary`, Graph `subject`).
        public var summary: String
        /// Plain-text description (Google `description`; Graph's `body` carries it as HTML).
        public var description: String?
        /// The location (Google `location`, Graph `location.displayName`).
        public var location: String?
        /// The start, inclusive.
        public var start: Time
        /// The end, exclusive. An all-day event ending on the next date lasts one day.
        public var end: Time
        /// Confirmed, tentative or cancelled.
        public var status: Status
        /// Makes the event a recurring series; `nil` for a single event.
        public var recurrence: Recurrence?

        /// Creates an event.
        public init(
            id: String = "",
            summary: String,
            description: String? = nil,
            location: String? = nil,
            start: Time,
            end: Time,
            status: Status = .confirmed,
            recurrence: Recurrence? = nil
        ) {
            self.id = id
            self.summary = summary
            self.description = description
            self.location = location
            self.start = start
            self.end = end
            self.status = status
            self.recurrence = recurrence
        }

        /// Whether the event lasts whole days (`date` rather than `dateTime`).
        public var isAllDay: Bool {
            if case .date = self.start { return true }
            return false
        }

        /// When an event starts or ends: an instant in a time zone, or a whole date.
        public enum Time: Sendable, Equatable {
            /// An instant, written in the IANA time zone (e.g. `Europe/Berlin`).
            case dateTime(Date, timeZone: String)
            /// A calendar date `yyyy-MM-dd` of an all-day event; never shifted by a time zone.
            case date(String)
        }

        /// The event status, as Google writes it (`confirmed`, `tentative`, `cancelled`).
        public struct Status: Hashable, Sendable, CustomStringConvertible {
            /// The wire value.
            public let rawValue: String

            /// Creates a status from its wire value.
            public init(_ rawValue: String) {
                self.rawValue = rawValue
            }

            /// `confirmed`.
            public static let confirmed = Status("confirmed")
            /// `tentative`.
            public static let tentative = Status("tentative")
            /// `cancelled`: Google lists it only with `showDeleted=true`; Graph shows `isCancelled: true`.
            public static let cancelled = Status("cancelled")

            /// The wire value.
            public var description: String { self.rawValue }
        }

        /// A daily or weekly series with a fixed number of occurrences (`RRULE:FREQ=…;COUNT=…`).
        public struct Recurrence: Sendable, Equatable {
            /// Days between occurrences: 1 for daily, 7 for weekly.
            public var intervalDays: Int
            /// The number of occurrences.
            public var count: Int
            /// Changes to single occurrences, by zero-based occurrence index.
            public var exceptions: [Int: Exception]

            /// Creates a series.
            public init(intervalDays: Int, count: Int, exceptions: [Int: Exception] = [:]) {
                self.intervalDays = max(1, intervalDays)
                self.count = max(1, count)
                self.exceptions = exceptions
            }

            /// A daily series.
            public static func daily(count: Int, exceptions: [Int: Exception] = [:]) -> Recurrence {
                Recurrence(intervalDays: 1, count: count, exceptions: exceptions)
            }

            /// A weekly series.
            public static func weekly(count: Int, exceptions: [Int: Exception] = [:]) -> Recurrence {
                Recurrence(intervalDays: 7, count: count, exceptions: exceptions)
            }

            /// A change to one occurrence: cancelled, moved or renamed.
            public struct Exception: Sendable, Equatable {
                /// The occurrence is cancelled.
                public var isCancelled: Bool
                /// A different title for this occurrence.
                public var summary: String?
                /// How far this occurrence moves from its original start.
                public var shift: Duration

                /// Creates an exception.
                public init(isCancelled: Bool = false, summary: String? = nil, shift: Duration = .zero) {
                    self.isCancelled = isCancelled
                    self.summary = summary
                    self.shift = shift
                }

                /// A cancelled occurrence.
                public static let cancelled = Exception(isCancelled: true)
            }

            /// The `RRULE` Google writes in `recurrence`.
            var rule: String {
                let weekly = self.intervalDays % 7 == 0
                let interval = weekly ? self.intervalDays / 7 : self.intervalDays
                let frequency = weekly ? "WEEKLY" : "DAILY"
                let intervalPart = interval == 1 ? "" : ";INTERVAL=\(interval)"
                return "RRULE:FREQ=\(frequency)\(intervalPart);COUNT=\(self.count)"
            }
        }
    }
}

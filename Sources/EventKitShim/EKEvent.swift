public import Foundation

/// An event in a calendar (https://developer.apple.com/documentation/eventkit/ekevent): only the properties
/// `AppleCalendarSource` reads, with Apple's Swift types (several are implicitly unwrapped optionals in the SDK).
/// On Apple platforms the properties shared with reminders come from `EKCalendarItem`
/// (https://developer.apple.com/documentation/eventkit/ekcalendaritem). Made by ``EKEventStore`` from the
/// simulated store.
@available(iOS 4.0, macOS 10.8, watchOS 2.0, visionOS 1.0, *)
@available(tvOS, unavailable)
open class EKEvent: NSObject {
    /// A unique identifier for the event, shared by the instances of a recurring event
    /// (https://developer.apple.com/documentation/eventkit/ekevent/eventidentifier).
    open var eventIdentifier: String!
    /// A unique identifier for the calendar item
    /// (https://developer.apple.com/documentation/eventkit/ekcalendaritem/calendaritemidentifier).
    open var calendarItemIdentifier: String
    /// The item's identifier on the calendar server
    /// (https://developer.apple.com/documentation/eventkit/ekcalendaritem/calendaritemexternalidentifier).
    open var calendarItemExternalIdentifier: String!
    /// The item's calendar (https://developer.apple.com/documentation/eventkit/ekcalendaritem/calendar).
    open var calendar: EKCalendar!
    /// The title (https://developer.apple.com/documentation/eventkit/ekcalendaritem/title).
    open var title: String!
    /// The start (https://developer.apple.com/documentation/eventkit/ekevent/startdate).
    open var startDate: Date!
    /// The end; for all-day events the last second of the last day
    /// (https://developer.apple.com/documentation/eventkit/ekevent/enddate).
    open var endDate: Date!
    /// The original start of this instance of a recurring event
    /// (https://developer.apple.com/documentation/eventkit/ekevent/occurrencedate).
    open var occurrenceDate: Date!
    /// Whether the event lasts all day (https://developer.apple.com/documentation/eventkit/ekevent/isallday).
    open var isAllDay: Bool
    /// The event's time zone; `nil` for floating events
    /// (https://developer.apple.com/documentation/eventkit/ekcalendaritem/timezone).
    open var timeZone: TimeZone?
    /// The status (https://developer.apple.com/documentation/eventkit/ekevent/status).
    open var status: EKEventStatus
    /// The location (https://developer.apple.com/documentation/eventkit/ekcalendaritem/location).
    open var location: String?
    /// The notes (https://developer.apple.com/documentation/eventkit/ekcalendaritem/notes).
    open var notes: String?
    /// The organizer (https://developer.apple.com/documentation/eventkit/ekevent/organizer).
    open var organizer: EKParticipant?
    /// Whether the item repeats
    /// (https://developer.apple.com/documentation/eventkit/ekcalendaritem/hasrecurrencerules).
    open var hasRecurrenceRules: Bool
    /// When the item was last changed
    /// (https://developer.apple.com/documentation/eventkit/ekcalendaritem/lastmodifieddate).
    open var lastModifiedDate: Date?
    /// A URL for the item (https://developer.apple.com/documentation/eventkit/ekcalendaritem/url).
    open var url: URL?

    package init(_ event: EventKitSimulator.Event, calendar: EKCalendar?) {
        self.eventIdentifier = event.identifier
        self.calendarItemIdentifier = event.identifier
        self.calendarItemExternalIdentifier = event.externalIdentifier
        self.calendar = calendar
        self.title = event.title
        self.startDate = event.start
        self.endDate = event.end
        self.occurrenceDate = event.occurrenceDate ?? event.start
        self.isAllDay = event.isAllDay
        self.timeZone = event.timeZoneIdentifier.flatMap(TimeZone.init(identifier:))
        self.status = EKEventStatus(rawValue: event.statusRawValue) ?? .none
        self.location = event.location
        self.notes = event.notes
        self.organizer = event.organizerURL.map { EKParticipant(name: event.organizerName, url: $0) }
        self.hasRecurrenceRules = event.isRecurring
        self.lastModifiedDate = event.lastModified
        self.url = event.url
    }
}

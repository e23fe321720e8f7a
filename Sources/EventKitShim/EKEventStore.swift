public import Foundation

/// The handler of ``EKEventStore/requestAccess(to:completion:)``
/// (https://developer.apple.com/documentation/eventkit/ekeventstorerequestaccesscompletionhandler).
@available(tvOS, unavailable)
public typealias EKEventStoreRequestAccessCompletionHandler = @Sendable (Bool, (any Error)?) -> Void

/// The user's calendar database (https://developer.apple.com/documentation/eventkit/ekeventstore): only the
/// members `AppleCalendarSource` and its documentation use, with Apple's signatures and availability.
///
/// It has no behaviour of its own: every member reads or writes the ``EventKitSimulator`` it was made over
/// (``EventKitSimulator/current`` for `init()`), which follows the rules Apple documents for each member.
@available(iOS 4.0, macOS 10.8, watchOS 2.0, visionOS 1.0, *)
@available(tvOS, unavailable)
open class EKEventStore: NSObject {
    package let simulator: EventKitSimulator

    /// Creates a store (https://developer.apple.com/documentation/eventkit/ekeventstore/init()); here, over
    /// ``EventKitSimulator/current``.
    public override init() {
        self.simulator = EventKitSimulator.current
        super.init()
        simulator.attach(self)
    }

    /// Creates a store over `simulator`.
    package init(simulator: EventKitSimulator) {
        self.simulator = simulator
        super.init()
        simulator.attach(self)
    }

    /// Asks the user for full access to events
    /// (https://developer.apple.com/documentation/eventkit/ekeventstore/requestfullaccesstoevents()).
    /// - Returns: Whether access was granted.
    @available(iOS 17.0, macOS 14.0, watchOS 10.0, visionOS 1.0, *)
    public func requestFullAccessToEvents() async throws -> Bool {
        simulator.request(fullAccess: true) == .fullAccess
    }

    /// Asks the user for access to events or reminders, before iOS 17 and macOS 14
    /// (https://developer.apple.com/documentation/eventkit/ekeventstore/requestaccess(to:completion:)).
    @available(iOS, introduced: 6.0, deprecated: 17.0, message: "Use requestFullAccessToEvents()")
    @available(macOS, introduced: 10.9, deprecated: 14.0, message: "Use requestFullAccessToEvents()")
    @available(watchOS, introduced: 2.0, deprecated: 10.0, message: "Use requestFullAccessToEvents()")
    @available(visionOS, introduced: 1.0, deprecated: 1.0, message: "Use requestFullAccessToEvents()")
    public func requestAccess(
        to entityType: EKEntityType,
        completion: @escaping EKEventStoreRequestAccessCompletionHandler
    ) {
        completion(entityType == .event && simulator.request(fullAccess: true) == .fullAccess, nil)
    }

    /// The app's authorization for `entityType`
    /// (https://developer.apple.com/documentation/eventkit/ekeventstore/authorizationstatus(for:)); here, that of
    /// ``EventKitSimulator/current``.
    open class func authorizationStatus(for entityType: EKEntityType) -> EKAuthorizationStatus {
        entityType == .event ? EventKitSimulator.current.authorization : .notDetermined
    }

    /// The calendar new events go to
    /// (https://developer.apple.com/documentation/eventkit/ekeventstore/defaultcalendarfornewevents).
    open var defaultCalendarForNewEvents: EKCalendar? {
        simulator.defaultCalendar.map(EKCalendar.init)
    }

    /// The calendars of `entityType`; empty without full access
    /// (https://developer.apple.com/documentation/eventkit/ekeventstore/calendars(for:)).
    /// - Parameter entityType: Events or reminders.
    /// - Returns: The calendars.
    open func calendars(for entityType: EKEntityType) -> [EKCalendar] {
        entityType == .event ? simulator.readCalendars().map(EKCalendar.init) : []
    }

    /// The calendar with `identifier`, if any
    /// (https://developer.apple.com/documentation/eventkit/ekeventstore/calendar(withidentifier:)).
    /// - Parameter identifier: The calendar's identifier.
    /// - Returns: The calendar.
    open func calendar(withIdentifier identifier: String) -> EKCalendar? {
        simulator.readCalendars().first { $0.identifier == identifier }.map(EKCalendar.init)
    }

    /// A predicate for the events between two dates in some calendars
    /// (https://developer.apple.com/documentation/eventkit/ekeventstore/predicateforevents(withstart:end:calendars:)).
    ///
    /// Apple: "For performance reasons, this method matches only those events within a four year time span. If the
    /// date range between startDate and endDate is greater than four years, it is shortened to the first four
    /// years."
    /// - Parameters:
    ///   - startDate: The start of the range.
    ///   - endDate: The end of the range.
    ///   - calendars: The calendars to search, or `nil` for all.
    /// - Returns: The predicate, for ``events(matching:)``.
    open func predicateForEvents(
        withStart startDate: Date,
        end endDate: Date,
        calendars: [EKCalendar]?
    ) -> NSPredicate {
        simulator.predicate(start: startDate, end: endDate, calendars: calendars?.map(\.calendarIdentifier))
    }

    /// The events matching a predicate from ``predicateForEvents(withStart:end:calendars:)``; synchronous, and
    /// empty without full access (https://developer.apple.com/documentation/eventkit/ekeventstore/events(matching:)).
    /// - Parameter predicate: The predicate.
    /// - Returns: The events, each instance of a recurring event on its own.
    open func events(matching predicate: NSPredicate) -> [EKEvent] {
        let calendars = Dictionary(
            simulator.calendarsSnapshot.map { ($0.identifier, $0) },
            uniquingKeysWith: { first, _ in first }
        )
        return simulator.readEvents(matching: predicate).map { event in
            EKEvent(event, calendar: calendars[event.calendarIdentifier].map(EKCalendar.init))
        }
    }
}

extension NSNotification.Name {
    /// Posted by an event store when the calendar database changed, without saying what
    /// (https://developer.apple.com/documentation/foundation/nsnotification/name-swift.struct/ekeventstorechanged);
    /// its object is the store.
    public static let EKEventStoreChanged = NSNotification.Name("EKEventStoreChangedNotification")
}

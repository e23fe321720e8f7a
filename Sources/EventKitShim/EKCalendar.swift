public import Foundation

/// A calendar (https://developer.apple.com/documentation/eventkit/ekcalendar): only what `AppleCalendarSource`
/// reads. Made by ``EKEventStore`` from the simulated store.
@available(iOS 4.0, macOS 10.8, watchOS 2.0, visionOS 1.0, *)
@available(tvOS, unavailable)
open class EKCalendar: NSObject {
    /// The calendar's unique identifier
    /// (https://developer.apple.com/documentation/eventkit/ekcalendar/calendaridentifier).
    open var calendarIdentifier: String
    /// The calendar's title (https://developer.apple.com/documentation/eventkit/ekcalendar/title).
    open var title: String

    package init(_ calendar: EventKitSimulator.Calendar) {
        self.calendarIdentifier = calendar.identifier
        self.title = calendar.title
    }
}

/// A person invited to or organizing an event (https://developer.apple.com/documentation/eventkit/ekparticipant):
/// only what `AppleCalendarSource` reads.
@available(iOS 4.0, macOS 10.8, watchOS 2.0, visionOS 1.0, *)
@available(tvOS, unavailable)
open class EKParticipant: NSObject {
    /// The participant's name (https://developer.apple.com/documentation/eventkit/ekparticipant/name).
    open var name: String?
    /// The participant's URL, usually `mailto:` (https://developer.apple.com/documentation/eventkit/ekparticipant/url).
    open var url: URL

    package init(name: String?, url: URL) {
        self.name = name
        self.url = url
    }
}

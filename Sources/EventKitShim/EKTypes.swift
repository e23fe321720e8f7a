// EventKit's enumerations, as Apple's SDK imports them into Swift, so that code written against EventKit compiles
// unchanged where EventKit does not exist (Linux, tvOS). Raw values are Apple's.

/// The type of entity: events or reminders
/// (https://developer.apple.com/documentation/eventkit/ekentitytype).
@available(iOS 6.0, macOS 10.8, watchOS 2.0, visionOS 1.0, *)
@available(tvOS, unavailable)
public enum EKEntityType: UInt, Sendable {
    /// An event (https://developer.apple.com/documentation/eventkit/ekentitytype/event).
    case event = 0
    /// A reminder (https://developer.apple.com/documentation/eventkit/ekentitytype/reminder).
    case reminder = 1
}

/// The app's authorization to the user's events or reminders
/// (https://developer.apple.com/documentation/eventkit/ekauthorizationstatus).
@available(iOS 6.0, macOS 10.9, watchOS 2.0, visionOS 1.0, *)
@available(tvOS, unavailable)
public enum EKAuthorizationStatus: Int, Sendable {
    /// The user has not chosen yet
    /// (https://developer.apple.com/documentation/eventkit/ekauthorizationstatus/notdetermined).
    case notDetermined = 0
    /// The app may not access the data, and the user cannot change that (parental controls, device management)
    /// (https://developer.apple.com/documentation/eventkit/ekauthorizationstatus/restricted).
    case restricted = 1
    /// The user denied access (https://developer.apple.com/documentation/eventkit/ekauthorizationstatus/denied).
    case denied = 2
    /// The app may read and write the data
    /// (https://developer.apple.com/documentation/eventkit/ekauthorizationstatus/fullaccess).
    @available(iOS 17.0, macOS 14.0, watchOS 10.0, visionOS 1.0, *)
    case fullAccess = 3
    /// The app may add events but not read them
    /// (https://developer.apple.com/documentation/eventkit/ekauthorizationstatus/writeonly).
    @available(iOS 17.0, macOS 14.0, watchOS 10.0, visionOS 1.0, *)
    case writeOnly = 4

    /// Access was granted; the same value as ``fullAccess``, under its name before iOS 17 and macOS 14
    /// (https://developer.apple.com/documentation/eventkit/ekauthorizationstatus/authorized).
    @available(iOS, introduced: 6.0, deprecated: 17.0, message: "Use fullAccess or writeOnly")
    @available(macOS, introduced: 10.9, deprecated: 14.0, message: "Use fullAccess or writeOnly")
    @available(watchOS, introduced: 2.0, deprecated: 10.0, message: "Use fullAccess or writeOnly")
    @available(visionOS, introduced: 1.0, deprecated: 1.0, message: "Use fullAccess or writeOnly")
    public static var authorized: EKAuthorizationStatus { .fullAccess }
}

/// The status of an event (https://developer.apple.com/documentation/eventkit/ekeventstatus).
@available(iOS 4.0, macOS 10.8, watchOS 2.0, visionOS 1.0, *)
@available(tvOS, unavailable)
public enum EKEventStatus: Int, Sendable {
    /// No status (https://developer.apple.com/documentation/eventkit/ekeventstatus/none).
    case none = 0
    /// Confirmed (https://developer.apple.com/documentation/eventkit/ekeventstatus/confirmed).
    case confirmed = 1
    /// Tentative (https://developer.apple.com/documentation/eventkit/ekeventstatus/tentative).
    case tentative = 2
    /// Canceled (https://developer.apple.com/documentation/eventkit/ekeventstatus/canceled).
    case canceled = 3
}

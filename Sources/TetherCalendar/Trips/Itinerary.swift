public import Foundation
public import TetherFlights

/// Where a person will be, read from the flights in their calendars: trips, a time zone for every day, and the
/// events that collide with a flight.
///
/// The flights are those the flight detector finds among the events, each turned into one or more legs (see
/// ``Leg``). Events that are cancelled — by their status, or by a title or first line of notes that says so — are
/// left out. The same flight in two calendars (same flight number and departure day, or same airports and
/// departure times within ``duplicateTolerance``) is one leg.
///
/// Legs join into trips. A trip starts with a flight that leaves the home area (``Home``) and ends with the
/// flight that lands there again; a trip whose return is not in the data is *open*. Within a trip, a departure
/// from the airport of the previous arrival within ``connectionTime`` is a connection: the person changes planes
/// and does not stay. Where the person stays longest is the trip's ``Trip/destination``.
///
/// ```swift
/// let itinerary = Itinerary(
///     events: result.events,
///     window: result.window,
///     home: Itinerary.Home(timeZone: TimeZone(identifier: "Europe/Berlin")!)
/// )
/// for trip in itinerary.trips {
///     print(trip.destination.airport.city, trip.nightsAway)
/// }
/// ```
///
/// Building an itinerary reads no clock and sends nothing: the same events and window give the same itinerary.
public struct Itinerary: Sendable, Hashable {
    /// The longest time between an arrival and a departure from the same airport that is a connection: 24 hours.
    public static let connectionTime: TimeInterval = 24 * 3600
    /// How far apart the departures of two events for the same airports may be for them to be one flight:
    /// 30 minutes.
    public static let duplicateTolerance: TimeInterval = 30 * 60
    /// The longest flight taken as such: 30 hours (the longest scheduled flights take about 19). A detection
    /// whose arrival is further from its departure is not placed.
    public static let maximumFlightTime: TimeInterval = 30 * 3600

    /// The window the itinerary covers; ``days`` are its dates in the home time zone.
    public var window: DateInterval
    /// The home the itinerary was built for.
    public var home: Home
    /// The airports whose area is home: those of ``home``, or, when it names none, the one found in the flights
    /// (the first that leaves from the home time zone at the start of a journey, or else the first that lands in
    /// it at the end of one). Empty when no flight touches the home time zone: then the home time zone is the
    /// home area.
    public var homeAirports: [Airport]
    /// Every flight leg, ordered by departure, duplicates merged.
    public var legs: [Leg]
    /// The trips, in order.
    public var trips: [Trip]
    /// One entry per date of the window, in the home time zone.
    public var days: [Day]
    /// The events that overlap a flight, ordered by the flight's departure, then the event's start.
    public var conflicts: [Conflict]
    /// The events the detector takes for flights but that say too little to place: no departure or arrival
    /// airport, no times, an arrival before the departure or more than ``maximumFlightTime`` after it, or an
    /// airport whose time zone is unknown.
    public var unplacedFlights: [CalendarEvent]

    /// Where the person is, between and on flights.
    var timeline: Timeline

    /// Builds the itinerary of `events`, running the flight detector on each.
    ///
    /// - Parameters:
    ///   - events: The events of every source, for example ``CalendarFetchResult/events``. Their order does not
    ///     matter.
    ///   - window: The window the events were fetched for.
    ///   - home: The person's home.
    ///   - detector: The flight detector.
    public init(
        events: [CalendarEvent],
        window: DateInterval,
        home: Home,
        detector: FlightDetector = FlightDetector()
    ) {
        self.init(events: events, window: window, home: home) { detector.detect(FlightDetector.Event($0)) }
    }

    /// Builds the itinerary of `events`, with the flights that `detection` finds.
    ///
    /// Use it when detections are at hand already (kept from an earlier run, or from another detector).
    ///
    /// - Parameters:
    ///   - events: The events of every source. Their order does not matter.
    ///   - window: The window the events were fetched for.
    ///   - home: The person's home.
    ///   - detection: The detection of an event; called once per event that is not cancelled.
    public init(
        events: [CalendarEvent],
        window: DateInterval,
        home: Home,
        detection: (CalendarEvent) -> FlightDetection
    ) {
        let takingPlace = events.filter { !Self.isCancelled($0) }
        var legs: [Leg] = []
        var unplaced: [CalendarEvent] = []
        var flightEvents: Set<CalendarEvent.Key> = []
        for event in takingPlace {
            let detected = detection(event)
            guard detected.isFlight else { continue }
            flightEvents.insert(event.key)
            let found = Leg.legs(of: event, detection: detected)
            if found.isEmpty {
                unplaced.append(event)
            } else {
                legs += found
            }
        }
        let merged = Leg.mergingDuplicates(legs)
        let area = HomeArea(home: home, legs: merged)
        let trips = TripBuilder(area: area, window: window).trips(from: merged)
        let timeline = Timeline(trips: trips, legs: merged, home: home.timeZone, window: window)
        let others = TimedEvents(takingPlace.filter { !flightEvents.contains($0.key) })

        self.window = window
        self.home = home
        self.homeAirports = area.airports
        self.legs = merged
        self.timeline = timeline
        self.trips = trips.map { trip in
            var trip = trip
            trip.events = others.starting(in: trip.interval).map { event in
                EventAway(event: event, timeZone: timeline.timeZone(at: event.interval(in: home.timeZone).start))
            }
            return trip
        }
        self.days = timeline.days(in: window, home: home.timeZone)
        self.conflicts = Conflict.conflicts(between: merged, and: TimedEvents(takingPlace))
        self.unplacedFlights = unplaced
    }

    /// The time zone the person is in at `instant`: the home time zone, the zone of the airport they are at
    /// or staying near, or, during a flight, the zone of the airport they left.
    ///
    /// - Parameter instant: Any instant; outside the window, what the nearest part of the window says.
    /// - Returns: The time zone.
    public func timeZone(at instant: Date) -> TimeZone {
        timeline.timeZone(at: instant)
    }
}

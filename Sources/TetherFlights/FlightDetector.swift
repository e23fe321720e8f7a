public import Foundation

/// Finds flights among calendar events.
///
/// The detector reads an event's title, description and location, with its start and end, and says whether the
/// event is a flight. When it is, it says what the text tells about it: the airline and flight number
/// (`UA 857`, `LH400`, `U2 1234`), the departure and arrival airports (`SFO → PEK`, `London Heathrow to Los
/// Angeles`, "Flug nach Berlin", "東京行きのフライト"), and the departure and arrival times (from the text when it has
/// them, as in an airline's confirmation, otherwise the event's own start and end).
///
/// It reads English, Spanish, French, German, Italian, Portuguese, Dutch, Japanese and Chinese, airline
/// confirmations (booking references, departure and arrival blocks) and schema.org `FlightReservation` markup as
/// JSON-LD or microdata. Airline designators and airport codes are checked against reference data that ships with
/// Tether, so "Room B12", "A320 review", "UA meeting" or "iOS 17" are not taken for flights.
///
/// ```swift
/// let detector = FlightDetector()
/// let detection = detector.detect(FlightDetector.Event(title: "UA857 SFO to PEK", start: start, end: end))
/// if detection.isFlight {
///     print(detection.flightNumber ?? "", detection.departureAirport?.city ?? "")
/// }
/// ```
///
/// The detector is a value with no state: share one, or make one wherever it is needed. Its reference data is
/// parsed once per process, on first use.
public struct FlightDetector: Sendable {
    /// How the detector decides.
    public struct Configuration: Sendable, Hashable {
        /// The confidence from which an event counts as a flight, between 0 and 1. The default, 0.5, is what the
        /// labelled corpus in Tether's tests was measured with.
        public var minimumConfidence: Double

        /// Creates a configuration.
        ///
        /// - Parameter minimumConfidence: The confidence from which an event counts as a flight.
        public init(minimumConfidence: Double = 0.5) {
            self.minimumConfidence = minimumConfidence
        }
    }

    /// The configuration the detector was made with.
    public var configuration: Configuration

    /// Creates a detector.
    ///
    /// - Parameter configuration: How the detector decides; the default suits most calendars.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Says whether an event is a flight, and what the event tells about it.
    ///
    /// - Parameter event: The event's text, times and time zone.
    /// - Returns: The detection; never fails, whatever the text.
    public func detect(_ event: Event) -> FlightDetection {
        FlightAnalysis(event: event).detection(minimumConfidence: configuration.minimumConfidence)
    }

    /// Says whether an event is a flight, and what the event tells about it.
    ///
    /// - Parameters:
    ///   - title: The event's title.
    ///   - description: The event's description, as plain text or with markup.
    ///   - location: The event's location.
    ///   - start: When the event starts.
    ///   - end: When the event ends.
    ///   - timeZone: The event's time zone, used to read times written without one.
    /// - Returns: The detection; never fails, whatever the text.
    public func detect(
        title: String?,
        description: String? = nil,
        location: String? = nil,
        start: Date? = nil,
        end: Date? = nil,
        timeZone: TimeZone? = nil
    ) -> FlightDetection {
        detect(
            Event(
                title: title,
                description: description,
                location: location,
                start: start,
                end: end,
                timeZone: timeZone
            )
        )
    }

    /// Runs the detector on each event and returns one report per event, in order: the shape
    /// `tether calendar flights --input FILE` prints.
    ///
    /// - Parameter events: The events to read.
    /// - Returns: One report per event.
    public func reports(for events: [Event]) -> [Report] {
        events.map { Report(detect($0)) }
    }
}

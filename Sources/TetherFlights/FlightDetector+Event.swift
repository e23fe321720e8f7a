public import Foundation

extension FlightDetector {
    /// What the detector reads from a calendar event.
    ///
    /// Its JSON form is the input of `tether calendar flights --input FILE`: an object with `title`,
    /// `description`, `location`, `start` and `end` (ISO 8601: `2027-04-02T18:30:00Z`, with an offset, with
    /// fractional seconds, or a date alone for an all-day event) and optionally `timeZone` (an IANA identifier).
    /// Every field may be missing or `null`.
    public struct Event: Sendable, Hashable, Codable {
        /// The event's title.
        public var title: String?
        /// The event's description, as plain text or with markup.
        public var description: String?
        /// The event's location.
        public var location: String?
        /// When the event starts.
        public var start: Date?
        /// When the event ends.
        public var end: Date?
        /// The event's time zone, used to read times written without one.
        public var timeZone: TimeZone?

        /// Creates an event to read.
        ///
        /// - Parameters:
        ///   - title: The event's title.
        ///   - description: The event's description.
        ///   - location: The event's location.
        ///   - start: When the event starts.
        ///   - end: When the event ends.
        ///   - timeZone: The event's time zone.
        public init(
            title: String?,
            description: String? = nil,
            location: String? = nil,
            start: Date? = nil,
            end: Date? = nil,
            timeZone: TimeZone? = nil
        ) {
            self.title = title
            self.description = description
            self.location = location
            self.start = start
            self.end = end
            self.timeZone = timeZone
        }

        private enum CodingKeys: String, CodingKey {
            case title, description, location, start, end, timeZone
        }

        /// Decodes an event from its JSON form.
        ///
        /// - Parameter decoder: The decoder to read from.
        /// - Throws: `DecodingError.dataCorrupted` when `start` or `end` is not an ISO 8601 date or date-time, or
        ///   `timeZone` is not a known time zone identifier.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            title = try container.decodeIfPresent(String.self, forKey: .title)
            description = try container.decodeIfPresent(String.self, forKey: .description)
            location = try container.decodeIfPresent(String.self, forKey: .location)
            start = try container.decodeFlightDate(forKey: .start)
            end = try container.decodeFlightDate(forKey: .end)
            if let identifier = try container.decodeIfPresent(String.self, forKey: .timeZone) {
                guard let zone = TimeZone(identifier: identifier) else {
                    throw DecodingError.dataCorruptedError(
                        forKey: .timeZone,
                        in: container,
                        debugDescription: "Not a known time zone identifier."
                    )
                }
                timeZone = zone
            } else {
                timeZone = nil
            }
        }

        /// Encodes the event in its JSON form, with ISO 8601 dates whatever the encoder's date strategy.
        ///
        /// - Parameter encoder: The encoder to write to.
        /// - Throws: What the encoder throws.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(title, forKey: .title)
            try container.encodeIfPresent(description, forKey: .description)
            try container.encodeIfPresent(location, forKey: .location)
            try container.encodeIfPresent(start.map(FlightDates.format), forKey: .start)
            try container.encodeIfPresent(end.map(FlightDates.format), forKey: .end)
            try container.encodeIfPresent(timeZone?.identifier, forKey: .timeZone)
        }

    }
}

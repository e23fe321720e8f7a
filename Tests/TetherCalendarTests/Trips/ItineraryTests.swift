import Foundation
import Testing
import TetherCalendar
import TetherFlights

/// Flights joined into trips, a time zone for every day, events away and events that collide with a flight.
struct ItineraryTests {
    @Test func aRoundTripWithConnectionsIsOneTripToWhereThePersonStays() throws {
        var calendar = TravelCalendar()
        try calendar.flight(
            "LH171",
            "BER",
            "FRA",
            departs: "2027-01-11T07:00:00+01:00",
            arrives: "2027-01-11T08:10:00+01:00"
        )
        try calendar.flight(
            "LH400",
            "FRA",
            "JFK",
            departs: "2027-01-11T10:00:00+01:00",
            arrives: "2027-01-11T12:45:00-05:00"
        )
        try calendar.flight(
            "LH401",
            "JFK",
            "FRA",
            departs: "2027-01-15T18:00:00-05:00",
            arrives: "2027-01-16T07:30:00+01:00"
        )
        try calendar.flight(
            "LH180",
            "FRA",
            "BER",
            departs: "2027-01-16T09:00:00+01:00",
            arrives: "2027-01-16T10:05:00+01:00"
        )
        try calendar.meeting("Early call", from: "2027-01-11T07:30:00+01:00", to: "2027-01-11T08:00:00+01:00")
        try calendar.meeting("Customer visit", from: "2027-01-13T10:00:00-05:00", to: "2027-01-13T11:00:00-05:00")
        try calendar.meeting("Dinner at home", from: "2027-01-18T19:00:00+01:00", to: "2027-01-18T21:00:00+01:00")
        let berlin = try zone("Europe/Berlin")
        let itinerary = try calendar.itinerary(
            from: "2027-01-10T00:00:00+01:00",
            to: "2027-01-20T00:00:00+01:00",
            home: Itinerary.Home(timeZone: berlin)
        )

        // No home airport given: the first journey leaves from Berlin's zone, at BER.
        #expect(itinerary.homeAirports.map(\.iataCode) == ["BER"])
        #expect(itinerary.trips.count == 1)
        let trip = try #require(itinerary.trips.first)
        #expect(trip.legs.map(\.flightNumber) == ["LH171", "LH400", "LH401", "LH180"])
        #expect(zip(trip.legs, trip.legs.dropFirst()).map { $0.isConnection(to: $1) } == [true, false, true])
        // Frankfurt is changed planes at, twice; New York is where the person stays.
        #expect(trip.stops.map(\.airport.iataCode) == ["JFK"])
        #expect(trip.destination.airport.iataCode == "JFK")
        #expect(trip.destination.timeZone.identifier == "America/New_York")
        #expect(trip.nightsAway == 5)
        #expect(!trip.isOpen && !trip.beganBeforeData)
        #expect(trip.returnLeg?.flightNumber == "LH180")
        let outbound = trip.legs[1]
        #expect(outbound.departureTimeZone.identifier == "Europe/Berlin")
        #expect(wallClock(outbound.departure, outbound.departureTimeZone) == "2027-01-11 10:00")
        #expect(wallClock(outbound.arrival, outbound.arrivalTimeZone) == "2027-01-11 12:45")

        // The call during the first flight is on the clock of the airport left; the visit on New York's.
        #expect(trip.events.map(\.event.title) == ["Early call", "Customer visit"])
        #expect(trip.events.map(\.timeZone.identifier) == ["Europe/Berlin", "America/New_York"])
        #expect(itinerary.conflicts.map(\.event.title) == ["Early call"])
        #expect(itinerary.conflicts.first?.leg.flightNumber == "LH171")

        #expect(itinerary.days.count == 10)
        #expect(itinerary.zones(on: "2027-01-10") == ["Europe/Berlin"])
        #expect(itinerary.zones(on: "2027-01-11") == ["Europe/Berlin", "America/New_York"])
        #expect(itinerary.isTravelDay("2027-01-11") == true)
        #expect(itinerary.zones(on: "2027-01-12") == ["America/New_York"])
        #expect(itinerary.isTravelDay("2027-01-12") == false)
        #expect(itinerary.zones(on: "2027-01-15") == ["America/New_York", "Europe/Berlin"])
        #expect(itinerary.zones(on: "2027-01-16") == ["America/New_York", "Europe/Berlin"])
        #expect(itinerary.zones(on: "2027-01-17") == ["Europe/Berlin"])
        #expect(itinerary.isTravelDay("2027-01-17") == false)

        #expect(itinerary.timeZone(at: try moment("2027-01-13T12:00:00Z")).identifier == "America/New_York")
        // In the air, the clock of the airport left.
        #expect(itinerary.timeZone(at: try moment("2027-01-11T12:00:00Z")).identifier == "Europe/Berlin")
        #expect(itinerary.timeZone(at: try moment("2027-01-18T12:00:00Z")).identifier == "Europe/Berlin")
    }

    @Test func anOvernightFlightEastwardOverTheDateLineLandsOnTheDateItLeft() throws {
        var calendar = TravelCalendar()
        try calendar.flight(
            "UA837",
            "SFO",
            "NRT",
            departs: "2027-01-08T11:00:00-08:00",
            arrives: "2027-01-09T15:30:00+09:00"
        )
        try calendar.flight(
            "UA838",
            "NRT",
            "SFO",
            departs: "2027-01-14T17:00:00+09:00",
            arrives: "2027-01-14T09:30:00-08:00"
        )
        try calendar.meeting("Dinner in Shinjuku", from: "2027-01-14T12:00:00+09:00", to: "2027-01-14T13:00:00+09:00")
        let losAngeles = try zone("America/Los_Angeles")
        let itinerary = try calendar.itinerary(
            from: "2027-01-07T00:00:00-08:00",
            to: "2027-01-17T00:00:00-08:00",
            home: Itinerary.Home(timeZone: losAngeles, airports: [try #require(Airport(iataCode: "SFO"))])
        )
        let trip = try #require(itinerary.trips.first)
        #expect(itinerary.trips.count == 1)
        #expect(trip.destination.airport.iataCode == "NRT")
        #expect(trip.nightsAway == 6)
        let back = try #require(trip.returnLeg)
        // It leaves Tokyo at 17:00 and lands in San Francisco at 09:30 the same date, nine and a half hours later.
        #expect(wallClock(back.departure, back.departureTimeZone) == "2027-01-14 17:00")
        #expect(wallClock(back.arrival, back.arrivalTimeZone) == "2027-01-14 09:30")
        #expect(back.arrival.timeIntervalSince(back.departure) == 9.5 * 3600)

        #expect(itinerary.zones(on: "2027-01-08") == ["America/Los_Angeles", "Asia/Tokyo"])
        #expect(itinerary.zones(on: "2027-01-10") == ["Asia/Tokyo"])
        #expect(itinerary.zones(on: "2027-01-13") == ["Asia/Tokyo"])
        #expect(itinerary.zones(on: "2027-01-14") == ["Asia/Tokyo", "America/Los_Angeles"])
        #expect(itinerary.isTravelDay("2027-01-14") == true)
        #expect(itinerary.zones(on: "2027-01-15") == ["America/Los_Angeles"])
        #expect(itinerary.isTravelDay("2027-01-15") == false)

        // Lunch on the 14th in Tokyo is the evening of the 13th at home.
        let dinner = try #require(trip.events.first)
        #expect(dinner.timeZone.identifier == "Asia/Tokyo")
        let start = dinner.event.interval(in: losAngeles).start
        #expect(wallClock(start, dinner.timeZone) == "2027-01-14 12:00")
        #expect(wallClock(start, losAngeles) == "2027-01-13 19:00")
        #expect(itinerary.timeZone(at: try moment("2027-01-14T12:00:00Z")).identifier == "Asia/Tokyo")
    }

    @Test func aTripAcrossTheChangeToSummerTimeKeepsEachClockRight() throws {
        var calendar = TravelCalendar()
        try calendar.flight(
            "LH400",
            "FRA",
            "JFK",
            departs: "2027-03-24T10:00:00+01:00",
            arrives: "2027-03-24T12:45:00-04:00"
        )
        try calendar.flight(
            "LH401",
            "JFK",
            "FRA",
            departs: "2027-03-31T18:00:00-04:00",
            arrives: "2027-04-01T08:00:00+02:00"
        )
        try calendar.meeting("Kickoff", from: "2027-03-26T10:00:00-04:00", to: "2027-03-26T11:00:00-04:00")
        try calendar.meeting("Review", from: "2027-03-29T10:00:00-04:00", to: "2027-03-29T11:00:00-04:00")
        let berlin = try zone("Europe/Berlin")
        let itinerary = try calendar.itinerary(
            from: "2027-03-22T00:00:00+01:00",
            to: "2027-04-05T00:00:00+02:00",
            home: Itinerary.Home(timeZone: berlin, airports: [try #require(Airport(iataCode: "FRA"))])
        )
        let trip = try #require(itinerary.trips.first)
        #expect(trip.destination.airport.iataCode == "JFK")
        // Berlin's 23-hour 28 March is still one night.
        #expect(trip.nightsAway == 8)
        #expect(itinerary.days.count == 14)
        #expect(itinerary.days.first?.date.description == "2027-03-22")
        #expect(itinerary.days.last?.date.description == "2027-04-04")
        #expect(itinerary.zones(on: "2027-03-28") == ["America/New_York"])
        #expect(itinerary.zones(on: "2027-04-01") == ["America/New_York", "Europe/Berlin"])

        let back = try #require(trip.returnLeg)
        #expect(berlin.secondsFromGMT(for: trip.legs[0].departure) == 3600)
        #expect(berlin.secondsFromGMT(for: back.arrival) == 7200)
        #expect(wallClock(back.arrival, back.arrivalTimeZone) == "2027-04-01 08:00")

        // The same 10:00 in New York is 15:00 at home before Berlin's change and 16:00 after it.
        let times = trip.events.map { away in
            let start = away.event.interval(in: berlin).start
            return [away.event.title, wallClock(start, away.timeZone), wallClock(start, berlin)]
        }
        #expect(
            times == [
                ["Kickoff", "2027-03-26 10:00", "2027-03-26 15:00"],
                ["Review", "2027-03-29 10:00", "2027-03-29 16:00"],
            ]
        )
    }

    @Test func cancelledFlightsAreLeftOutByStatusTitleOrFirstLineOfNotes() throws {
        var calendar = TravelCalendar()
        try calendar.flight(
            "LH400",
            "FRA",
            "JFK",
            departs: "2027-01-11T10:00:00+01:00",
            arrives: "2027-01-11T12:45:00-05:00",
            status: .cancelled
        )
        try calendar.flight(
            "LH402",
            "FRA",
            "JFK",
            departs: "2027-01-12T10:00:00+01:00",
            arrives: "2027-01-12T12:45:00-05:00",
            title: "CANCELLED: LH 402 FRA → JFK"
        )
        try calendar.flight(
            "LH404",
            "FRA",
            "JFK",
            departs: "2027-01-13T10:00:00+01:00",
            arrives: "2027-01-13T12:45:00-05:00",
            notes: "\nYour flight LH 404 has been cancelled.\nWe will rebook you."
        )
        try calendar.flight(
            "LH408",
            "FRA",
            "JFK",
            departs: "2027-01-14T10:00:00+01:00",
            arrives: "2027-01-14T12:45:00-05:00",
            title: "Flug LH 408 storniert"
        )
        // Conditions of carriage further down the notes say nothing about this flight.
        try calendar.flight(
            "LH406",
            "FRA",
            "JFK",
            departs: "2027-01-15T10:00:00+01:00",
            arrives: "2027-01-15T12:45:00-05:00",
            notes: "Booking reference QX7K2P\n\nIf your flight is cancelled, you may be entitled to compensation."
        )
        try calendar.meeting("Lunch", from: "2027-01-11T12:00:00+01:00", to: "2027-01-11T13:00:00+01:00")
        let itinerary = try calendar.itinerary(
            from: "2027-01-10T00:00:00+01:00",
            to: "2027-01-20T00:00:00+01:00",
            home: Itinerary.Home(timeZone: try zone("Europe/Berlin"))
        )
        #expect(itinerary.legs.map(\.flightNumber) == ["LH406"])
        #expect(itinerary.trips.count == 1)
        #expect(itinerary.trips.first?.isOpen == true)
        // A cancelled flight is no conflict either.
        #expect(itinerary.conflicts.isEmpty)
        #expect(itinerary.unplacedFlights.isEmpty)
    }

    @Test func theSameFlightInTwoCalendarsIsOneLegOfOneTrip() throws {
        var calendar = TravelCalendar()
        // Same number, same day, five minutes apart: the confirmed one is shown.
        let tentative = try calendar.flight(
            "LH400",
            "FRA",
            "JFK",
            departs: "2027-01-11T10:00:00+01:00",
            arrives: "2027-01-11T12:45:00-05:00",
            status: .tentative
        )
        let confirmed = try calendar.flight(
            "LH400",
            "FRA",
            "JFK",
            departs: "2027-01-11T10:05:00+01:00",
            arrives: "2027-01-11T12:50:00-05:00",
            source: "outlook"
        )
        // No number in one of them: same airports, departures ten minutes apart.
        try calendar.flight(
            "LH401",
            "JFK",
            "FRA",
            departs: "2027-01-15T18:00:00-05:00",
            arrives: "2027-01-16T07:30:00+01:00"
        )
        try calendar.flight(
            nil,
            "JFK",
            "FRA",
            departs: "2027-01-15T18:10:00-05:00",
            arrives: "2027-01-16T07:40:00+01:00",
            source: "outlook"
        )
        let itinerary = try calendar.itinerary(
            from: "2027-01-10T00:00:00+01:00",
            to: "2027-01-20T00:00:00+01:00",
            home: Itinerary.Home(timeZone: try zone("Europe/Berlin"))
        )
        #expect(itinerary.trips.count == 1)
        #expect(itinerary.legs.count == 2)
        let outbound = itinerary.legs[0]
        #expect(outbound.events.map(\.key) == [confirmed.key, tentative.key])
        #expect(outbound.departure == confirmed.interval(in: .current).start)
        let back = itinerary.legs[1]
        #expect(back.flightNumber == "LH401")
        #expect(Set(back.events.map(\.source)) == ["google", "outlook"])
        // Two events of one flight do not collide with each other.
        #expect(itinerary.conflicts.isEmpty)
        #expect(itinerary.trips.first?.nightsAway == 5)
    }

    @Test func differentFlightsStayApartAndTwoAtOnceCollide() throws {
        var calendar = TravelCalendar()
        try calendar.flight(
            "LH400",
            "FRA",
            "JFK",
            departs: "2027-01-11T10:00:00+01:00",
            arrives: "2027-01-11T12:45:00-05:00"
        )
        // The same route three hours later, booked too: a second flight, and one the person cannot take as well.
        try calendar.flight(
            "UA961",
            "FRA",
            "JFK",
            departs: "2027-01-11T13:00:00+01:00",
            arrives: "2027-01-11T15:45:00-05:00"
        )
        // The same number a week later.
        try calendar.flight(
            "LH400",
            "FRA",
            "JFK",
            departs: "2027-01-18T10:00:00+01:00",
            arrives: "2027-01-18T12:45:00-05:00"
        )
        let itinerary = try calendar.itinerary(
            from: "2027-01-10T00:00:00+01:00",
            to: "2027-01-20T00:00:00+01:00",
            home: Itinerary.Home(
                timeZone: try zone("Europe/Berlin"),
                airports: [try #require(Airport(iataCode: "FRA"))]
            )
        )
        #expect(itinerary.legs.map(\.flightNumber) == ["LH400", "UA961", "LH400"])
        let pairs = itinerary.conflicts.map { [$0.leg.flightNumber ?? "", $0.event.title] }
        #expect(pairs == [["LH400", "UA961 FRA → JFK"], ["UA961", "LH400 FRA → JFK"]])
    }

    @Test func aTripUnderwayWhenTheDataStartsAndOneNotBackWhenItEnds() throws {
        var calendar = TravelCalendar()
        try calendar.flight(
            "UA838",
            "NRT",
            "SFO",
            departs: "2027-02-03T17:00:00+09:00",
            arrives: "2027-02-03T09:30:00-08:00"
        )
        try calendar.flight(
            "UA901",
            "SFO",
            "LHR",
            departs: "2027-02-10T16:00:00-08:00",
            arrives: "2027-02-11T10:30:00+00:00"
        )
        let losAngeles = try zone("America/Los_Angeles")
        let itinerary = try calendar.itinerary(
            from: "2027-02-01T00:00:00-08:00",
            to: "2027-02-15T00:00:00-08:00",
            home: Itinerary.Home(timeZone: losAngeles)
        )
        // Home found from the first journey that reaches Los Angeles' zone: it lands at SFO.
        #expect(itinerary.homeAirports.map(\.iataCode) == ["SFO"])
        #expect(itinerary.trips.count == 2)
        let earlier = itinerary.trips[0]
        #expect(earlier.beganBeforeData && !earlier.isOpen)
        #expect(earlier.destination.airport.iataCode == "NRT")
        #expect(earlier.destination.arrival == nil)
        #expect(earlier.returnLeg?.flightNumber == "UA838")
        #expect(earlier.nightsAway == 2)
        #expect(itinerary.zones(on: "2027-02-01") == ["Asia/Tokyo"])
        #expect(itinerary.zones(on: "2027-02-05") == ["America/Los_Angeles"])

        let later = itinerary.trips[1]
        #expect(later.isOpen && !later.beganBeforeData)
        #expect(later.returnLeg == nil)
        #expect(later.stops.map(\.airport.iataCode) == ["LHR"])
        #expect(later.stops.last?.departure == nil)
        #expect(later.nightsAway == 5)
        #expect(itinerary.zones(on: "2027-02-13") == ["Europe/London"])
        #expect(itinerary.zones(on: "2027-02-14") == ["Europe/London"])
        #expect(itinerary.days.count == 14)
        #expect(itinerary.timeZone(at: try moment("2027-02-14T12:00:00Z")).identifier == "Europe/London")
    }

    @Test func aFlightBackToAnotherAirportOfTheHomeCityEndsTheTrip() throws {
        var calendar = TravelCalendar()
        try calendar.flight(
            "BA1440",
            "LGW",
            "EDI",
            departs: "2027-05-03T08:00:00+01:00",
            arrives: "2027-05-03T09:20:00+01:00"
        )
        try calendar.flight(
            "BA1441",
            "EDI",
            "LHR",
            departs: "2027-05-05T18:00:00+01:00",
            arrives: "2027-05-05T19:25:00+01:00"
        )
        let london = try zone("Europe/London")
        let itinerary = try calendar.itinerary(
            from: "2027-05-01T00:00:00+01:00",
            to: "2027-05-08T00:00:00+01:00",
            home: Itinerary.Home(timeZone: london, airports: [try #require(Airport(iataCode: "LON"))])
        )
        // Edinburgh keeps London's clock, but it is not home: the trip is by airport, not by time zone.
        #expect(itinerary.trips.count == 1)
        let trip = try #require(itinerary.trips.first)
        #expect(trip.destination.airport.iataCode == "EDI")
        #expect(trip.returnLeg?.to.iataCode == "LHR")
        #expect(!trip.isOpen)
        #expect(trip.nightsAway == 2)
        #expect(itinerary.zones(on: "2027-05-04") == ["Europe/London"])
        #expect(itinerary.isTravelDay("2027-05-03") == true)
        #expect(itinerary.isTravelDay("2027-05-04") == false)
    }

    @Test func flightsThatSayTooLittleAreListedNotPlaced() throws {
        var calendar = TravelCalendar()
        let noAirport = try calendar.flight(
            "LH400",
            "FRA",
            "JFK",
            departs: "2027-01-11T10:00:00+01:00",
            arrives: "2027-01-11T12:45:00-05:00"
        )
        calendar.detections[noAirport.key]?.arrivalAirport = nil
        let backwards = try calendar.flight(
            "LH401",
            "JFK",
            "FRA",
            departs: "2027-01-15T18:00:00-05:00",
            arrives: "2027-01-15T07:30:00+01:00"
        )
        let tooLong = try calendar.flight(
            "LH402",
            "FRA",
            "JFK",
            departs: "2027-01-16T10:00:00+01:00",
            arrives: "2027-01-18T12:45:00-05:00"
        )
        let noTimes = try calendar.flight(
            "LH403",
            "FRA",
            "JFK",
            departs: "2027-01-17T10:00:00+01:00",
            arrives: "2027-01-17T12:45:00-05:00"
        )
        calendar.detections[noTimes.key]?.departure = nil
        let notAFlight = try calendar.flight(
            "LH404",
            "FRA",
            "JFK",
            departs: "2027-01-18T10:00:00+01:00",
            arrives: "2027-01-18T12:45:00-05:00"
        )
        calendar.detections[notAFlight.key] = .notAFlight(confidence: 0.2)
        let berlin = try zone("Europe/Berlin")
        let itinerary = try calendar.itinerary(
            from: "2027-01-10T00:00:00+01:00",
            to: "2027-01-20T00:00:00+01:00",
            home: Itinerary.Home(timeZone: berlin)
        )
        #expect(itinerary.unplacedFlights.map(\.key) == [noAirport.key, backwards.key, tooLong.key, noTimes.key])
        #expect(itinerary.legs.isEmpty)
        #expect(itinerary.trips.isEmpty)
        #expect(itinerary.homeAirports.isEmpty)
        #expect(itinerary.days.count == 10)
        #expect(itinerary.days.allSatisfy { $0.timeZones == [berlin] && !$0.isTravelDay })
        // The event that is no flight is an event like any other: it overlaps no flight, and no trip holds it.
        #expect(itinerary.conflicts.isEmpty)
    }

    @Test func allDayAndCancelledEventsNeitherCollideNorCountAsEventsAway() throws {
        var calendar = TravelCalendar()
        try calendar.flight(
            "LH400",
            "FRA",
            "JFK",
            departs: "2027-01-11T10:00:00+01:00",
            arrives: "2027-01-11T12:45:00-05:00"
        )
        try calendar.allDay("Trip to New York", first: "2027-01-11", end: "2027-01-14")
        try calendar.meeting(
            "Standup",
            from: "2027-01-11T11:00:00+01:00",
            to: "2027-01-11T11:15:00+01:00",
            status: .cancelled
        )
        try calendar.meeting(
            "Design review",
            from: "2027-01-11T11:00:00+01:00",
            to: "2027-01-11T12:00:00+01:00",
            status: .tentative
        )
        try calendar.meeting(
            "Museum",
            from: "2027-01-12T14:00:00-05:00",
            to: "2027-01-12T16:00:00-05:00",
            status: .cancelled
        )
        let itinerary = try calendar.itinerary(
            from: "2027-01-10T00:00:00+01:00",
            to: "2027-01-14T00:00:00+01:00",
            home: Itinerary.Home(timeZone: try zone("Europe/Berlin"))
        )
        #expect(itinerary.conflicts.map(\.event.title) == ["Design review"])
        #expect(itinerary.trips.first?.events.map(\.event.title) == ["Design review"])
    }

    @Test func aLongEventAndAnEventWithoutDurationCollideAsTheCalendarWindowRuleSays() throws {
        var calendar = TravelCalendar()
        try calendar.flight(
            "LH400",
            "FRA",
            "JFK",
            departs: "2027-01-11T10:00:00+01:00",
            arrives: "2027-01-11T12:45:00-05:00"
        )
        // Starts days before the flight: found although it starts long before the flight does.
        try calendar.meeting("Conference", from: "2027-01-08T09:00:00+01:00", to: "2027-01-12T18:00:00+01:00")
        try calendar.meeting("Reminder at boarding", from: "2027-01-11T10:00:00+01:00", to: "2027-01-11T10:00:00+01:00")
        // An instant at the landing is after the flight; an event that ends as it leaves is before it.
        try calendar.meeting("Reminder at landing", from: "2027-01-11T12:45:00-05:00", to: "2027-01-11T12:45:00-05:00")
        try calendar.meeting("Breakfast", from: "2027-01-11T09:00:00+01:00", to: "2027-01-11T10:00:00+01:00")
        let itinerary = try calendar.itinerary(
            from: "2027-01-10T00:00:00+01:00",
            to: "2027-01-14T00:00:00+01:00",
            home: Itinerary.Home(timeZone: try zone("Europe/Berlin"))
        )
        #expect(itinerary.conflicts.map(\.event.title) == ["Conference", "Reminder at boarding"])
        #expect(itinerary.trips.first?.events.map(\.event.title) == ["Reminder at boarding", "Reminder at landing"])
    }

    @Test func theFlightDetectorFindsTheLegsOfPlainCalendarEvents() throws {
        let losAngeles = try zone("America/Los_Angeles")
        let tokyo = try zone("Asia/Tokyo")
        func event(
            _ id: String,
            _ title: String,
            _ start: String,
            _ end: String,
            _ zone: TimeZone
        ) throws -> CalendarEvent {
            CalendarEvent(
                id: id,
                source: "google",
                calendarID: "primary",
                title: title,
                timing: .timed(start: try moment(start), end: try moment(end)),
                timeZone: zone
            )
        }
        let events = [
            try event("out", "UA 837 SFO → NRT", "2027-01-08T11:00:00-08:00", "2027-01-09T15:30:00+09:00", losAngeles),
            try event("back", "UA 838 NRT → SFO", "2027-01-14T17:00:00+09:00", "2027-01-14T09:30:00-08:00", tokyo),
            try event("call", "Weekly call", "2027-01-11T09:00:00-08:00", "2027-01-11T09:30:00-08:00", losAngeles),
        ]
        let window = DateInterval(
            start: try moment("2027-01-07T00:00:00-08:00"),
            end: try moment("2027-01-17T00:00:00-08:00")
        )
        let itinerary = Itinerary(events: events, window: window, home: Itinerary.Home(timeZone: losAngeles))
        #expect(itinerary.legs.map(\.flightNumber) == ["UA837", "UA838"])
        let trip = try #require(itinerary.trips.first)
        #expect(trip.destination.airport.iataCode == "NRT")
        #expect(trip.events.map(\.event.title) == ["Weekly call"])
        #expect(trip.events.first?.timeZone.identifier == "Asia/Tokyo")
    }

    @Test func anAgencysItineraryInOneEventGivesEveryLeg() throws {
        let losAngeles = try zone("America/Los_Angeles")
        let booking = CalendarEvent(
            id: "booking",
            source: "google",
            calendarID: "primary",
            title: "Trip to Vienna",
            timing: .timed(
                start: try moment("2027-03-14T15:40:00-07:00"),
                end: try moment("2027-03-20T12:55:00-07:00")
            ),
            timeZone: losAngeles,
            notes: """
                RP/MUC1S2100/MUC1S2100            AA/SU  14FEB27/0932Z   5LQW8T
                  1.HOFMANN/KATRIN MRS
                  2  LH 455 Y 14MAR 7 SFOFRA HK1  1540  1125+1
                  3  LH1234 Y 15MAR 1 FRAVIE HK1  1300  1420
                  4  LH1235 Y 20MAR 6 VIEFRA HK1  0700  0815
                  5  LH 454 Y 20MAR 6 FRASFO HK1  1000  1255
                """
        )
        let window = DateInterval(
            start: try moment("2027-03-10T00:00:00-07:00"),
            end: try moment("2027-03-25T00:00:00-07:00")
        )
        let itinerary = Itinerary(events: [booking], window: window, home: Itinerary.Home(timeZone: losAngeles))
        #expect(itinerary.legs.map(\.flightNumber) == ["LH455", "LH1234", "LH1235", "LH454"])
        let trip = try #require(itinerary.trips.first)
        #expect(itinerary.trips.count == 1)
        #expect(trip.destination.airport.iataCode == "VIE")
        #expect(trip.nightsAway == 6)
    }
}

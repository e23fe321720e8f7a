import Foundation
import Testing
import TetherCalendar
import TetherCommandSupport

@testable import TetherCLI

/// The calendar setting of a profile, the calendar API implied by scopes, and `--from` / `--to`, called directly.
struct CalendarSettingTests {
    @Test func theDevelopmentPresetReadsTheProvidersOwnEndpointsAndOthersTheServices() throws {
        let dev = try #require(
            try CalendarSetting.resolve(
                api: .microsoft,
                apiURL: nil,
                existing: nil,
                preset: .dev,
                issuer: "http://127.0.0.1:8123"
            )
        )
        #expect(dev.baseURL.absoluteString == "http://127.0.0.1:8123/v1.0")
        let google = try CalendarSetting.resolve(api: .google, apiURL: nil, existing: nil, preset: .google, issuer: nil)
        #expect(google?.baseURL.absoluteString == "https://www.googleapis.com/calendar/v3")
        let given = try CalendarSetting.resolve(
            api: .google,
            apiURL: "https://calendar.example.com/v3",
            existing: nil,
            preset: nil,
            issuer: nil
        )
        #expect(given?.baseURL.absoluteString == "https://calendar.example.com/v3")
        // A saved connection keeps its setting; none without --calendar is none.
        #expect(try CalendarSetting.resolve(api: nil, apiURL: nil, existing: dev, preset: .dev, issuer: nil) == dev)
        #expect(try CalendarSetting.resolve(api: nil, apiURL: nil, existing: nil, preset: .dev, issuer: nil) == nil)
    }

    @Test(arguments: [
        "http://calendar.example.com/v3", "ftp://127.0.0.1/v3", "calendar.example.com", "", "http:///v3",
    ])
    func baseURLsThatAreNotHTTPSOrLoopbackAreRefused(url: String) {
        #expect(throws: CLIFailure.self) { try CalendarSetting.validatedBaseURL(url) }
    }

    @Test(arguments: ["http://127.0.0.1:8123/v1.0", "http://localhost/v3", "http://[::1]:9/v3", "https://x.example"])
    func httpsAndLoopbackBaseURLsAreAccepted(url: String) throws {
        #expect(try CalendarSetting.validatedBaseURL(url).absoluteString == url)
    }

    @Test func aCalendarScopeImpliesTheAPIForGoogleAndMicrosoftOnly() {
        #expect(
            CalendarSetting.implied(preset: .google, scopes: ["openid", "https://www.googleapis.com/auth/calendar"])
                == .google
        )
        #expect(
            CalendarSetting.implied(preset: .google, scopes: ["https://www.googleapis.com/auth/calendar.readonly"])
                == .google
        )
        #expect(CalendarSetting.implied(preset: .google, scopes: ["openid", "email"]) == nil)
        #expect(CalendarSetting.implied(preset: .microsoft, scopes: ["Calendars.Read"]) == .microsoft)
        #expect(
            CalendarSetting.implied(preset: .microsoft, scopes: ["https://graph.microsoft.com/Calendars.ReadWrite"])
                == .microsoft
        )
        #expect(CalendarSetting.implied(preset: .microsoft, scopes: ["User.Read", "Calendars.Readable"]) == nil)
        #expect(CalendarSetting.implied(preset: .dev, scopes: ["Calendars.Read"]) == nil)
    }

    @Test func aProfileWithoutCalendarFieldsDecodesAndABaseURLDefaults() throws {
        let old = """
            {"name": "work", "preset": "oidc", "provider": {"provider_id": "login.example.com",
             "token_endpoint": "https://login.example.com/token", "client_id": "cli"}}
            """
        let profile = try JSONDecoder().decode(Profile.self, from: Data(old.utf8))
        #expect(profile.calendar == nil)
        let encoded = String(decoding: try JSONEncoder().encode(profile), as: UTF8.self)
        #expect(!encoded.contains("calendar"))

        let withAPI = """
            {"name": "work", "preset": "microsoft", "calendar": {"api": "microsoft"}, "provider": {
             "provider_id": "microsoft", "token_endpoint": "https://login.example.com/token", "client_id": "cli"}}
            """
        let calendar = try JSONDecoder().decode(Profile.self, from: Data(withAPI.utf8)).calendar
        #expect(calendar?.baseURL.absoluteString == "https://graph.microsoft.com/v1.0")
    }

    @Test func windowsAreDatesAtLocalMidnightOrInstantsAndDefaultToAWeek() throws {
        let zone = try #require(TimeZone(identifier: "Europe/Berlin"))
        let now = try #require(ISO8601DateFormatter().date(from: "2026-11-25T15:00:00Z"))
        func window(_ from: String?, _ to: String? = nil) throws -> DateInterval {
            try CalendarWindowOptions.window(from: from, to: to, now: now, timeZone: zone)
        }
        let week = try window("2026-11-23")
        #expect(Format.iso8601(week.start) == "2026-11-22T23:00:00Z")
        #expect(Format.iso8601(week.end) == "2026-11-29T23:00:00Z")
        let today = try window(nil)
        #expect(Format.iso8601(today.start) == "2026-11-24T23:00:00Z")
        #expect(Format.iso8601(today.end) == "2026-12-01T23:00:00Z")
        let instants = try window("2026-11-23T09:30:00Z", "2026-11-23T11:00")
        #expect(Format.iso8601(instants.start) == "2026-11-23T09:30:00Z")
        #expect(Format.iso8601(instants.end) == "2026-11-23T10:00:00Z")
        #expect(Format.iso8601(try window("2026-11-23T09:30:00.250+01:00").start) == "2026-11-23T08:30:00Z")
        // Across the change to summer time, a week of days is still 7 local midnights.
        #expect(Format.iso8601(try window("2027-03-25").end) == "2027-03-31T22:00:00Z")
        #expect(throws: CLIFailure.self) { try window("2026-11-23", "2026-11-22") }
        #expect(throws: CLIFailure.self) { try window("next tuesday") }
    }
}

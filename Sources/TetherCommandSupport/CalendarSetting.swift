package import Foundation
import Tether
package import TetherCalendar

/// The calendar APIs a connection can be read with (`tether login … --calendar`).
package enum CalendarAPI: String, Sendable, Codable, CaseIterable {
    case google
    case microsoft

    /// The kind of source the library reads it with.
    package var kind: CalendarSourceKind {
        switch self {
        case .google: .google
        case .microsoft: .microsoft
        }
    }

    /// The real service: Google Calendar API v3 or Microsoft Graph v1.0.
    package var defaultBaseURL: URL {
        switch self {
        case .google: GoogleCalendarClient.Configuration.defaultBaseURL
        case .microsoft: GraphCalendarClient.Configuration.defaultBaseURL
        }
    }

    /// Where the development provider serves this API, under its issuer.
    package var developmentPath: String {
        switch self {
        case .google: "calendar/v3"
        case .microsoft: "v1.0"
        }
    }
}

/// What makes a connection a calendar source: the API it is read with, the API's base URL, and the calendars
/// read (`tether calendar select`). Kept in the connection's profile; profiles written before calendars existed
/// have none, and those written before calendars could be chosen read the default ones.
package struct CalendarSetting: Sendable, Codable, Equatable {
    /// The API.
    package var api: CalendarAPI
    /// The API's base URL, such as `https://www.googleapis.com/calendar/v3`.
    package var baseURL: URL
    /// The calendars read; absent from the profile for the default, so that a profile that never chose stays as
    /// it was written (its MAC covers its bytes).
    package var calendars: CalendarSelection?

    package init(api: CalendarAPI, baseURL: URL? = nil, calendars: CalendarSelection? = nil) {
        self.api = api
        self.baseURL = baseURL ?? api.defaultBaseURL
        self.calendars = calendars?.isDefault == true ? nil : calendars
    }

    /// The calendars read.
    package var selection: CalendarSelection { calendars ?? .default }

    private enum CodingKeys: String, CodingKey {
        case api, baseURL, calendars
    }

    /// A missing base URL is the API's default; missing calendars are the default ones.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            api: try container.decode(CalendarAPI.self, forKey: .api),
            baseURL: try container.decodeIfPresent(URL.self, forKey: .baseURL),
            calendars: try container.decodeIfPresent(CalendarSelection.self, forKey: .calendars)
        )
    }

    /// A base URL from `--calendar-api`: https, or plain http to a loopback host only, since every request
    /// carries a bearer token (RFC 6750 section 5.3).
    package static func validatedBaseURL(_ text: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty
        else {
            throw CLIFailure(.usage, "--calendar-api '\(text)' is not a URL", fix: "Give an https URL")
        }
        let loopback = LoopbackHost.contains(host)
        guard scheme == "https" || (scheme == "http" && loopback) else {
            throw CLIFailure(
                .usage,
                "--calendar-api '\(text)' must use https (plain http only to 127.0.0.1, localhost or ::1)",
                fix: "Bearer tokens are sent to it; give an https URL"
            )
        }
        return url
    }
}

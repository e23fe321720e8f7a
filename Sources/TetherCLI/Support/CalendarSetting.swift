import ArgumentParser
import Foundation
import Tether
import TetherCalendar

/// The calendar APIs a connection can be read with (`tether login … --calendar`).
enum CalendarAPI: String, Sendable, Codable, CaseIterable, ExpressibleByArgument {
    case google
    case microsoft

    /// Reads the API from the command line, ignoring case.
    init?(argument: String) {
        self.init(rawValue: argument.lowercased())
    }

    /// The kind of source the library reads it with.
    var kind: CalendarSourceKind {
        switch self {
        case .google: .google
        case .microsoft: .microsoft
        }
    }

    /// The real service: Google Calendar API v3 or Microsoft Graph v1.0.
    var defaultBaseURL: URL {
        switch self {
        case .google: GoogleCalendarClient.Configuration.defaultBaseURL
        case .microsoft: GraphCalendarClient.Configuration.defaultBaseURL
        }
    }

    /// Where the development provider serves this API, under its issuer.
    var developmentPath: String {
        switch self {
        case .google: "calendar/v3"
        case .microsoft: "v1.0"
        }
    }
}

/// What makes a connection a calendar source: the API it is read with, the API's base URL, and the calendars
/// read (`tether calendar select`). Kept in the connection's profile; profiles written before calendars existed
/// have none, and those written before calendars could be chosen read the default ones.
struct CalendarSetting: Sendable, Codable, Equatable {
    /// The API.
    var api: CalendarAPI
    /// The API's base URL, such as `https://www.googleapis.com/calendar/v3`.
    var baseURL: URL
    /// The calendars read; absent from the profile for the default, so that a profile that never chose stays as
    /// it was written (its MAC covers its bytes).
    var calendars: CalendarSelection?

    init(api: CalendarAPI, baseURL: URL? = nil, calendars: CalendarSelection? = nil) {
        self.api = api
        self.baseURL = baseURL ?? api.defaultBaseURL
        self.calendars = calendars?.isDefault == true ? nil : calendars
    }

    /// The calendars read.
    var selection: CalendarSelection { calendars ?? .default }

    private enum CodingKeys: String, CodingKey {
        case api, baseURL, calendars
    }

    /// A missing base URL is the API's default; missing calendars are the default ones.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            api: try container.decode(CalendarAPI.self, forKey: .api),
            baseURL: try container.decodeIfPresent(URL.self, forKey: .baseURL),
            calendars: try container.decodeIfPresent(CalendarSelection.self, forKey: .calendars)
        )
    }

    /// The setting `tether login` saves.
    ///
    /// `--calendar` names the API; without it a saved connection keeps its setting. `--calendar-api` replaces the
    /// base URL, which otherwise is the real service's — or, for the `dev` preset, the development provider's own
    /// endpoint under its issuer.
    /// - Parameters:
    ///   - api: `--calendar`.
    ///   - apiURL: `--calendar-api`.
    ///   - existing: The saved connection's setting.
    ///   - preset: The provider preset, if any.
    ///   - issuer: The provider's issuer.
    /// - Returns: The setting, or `nil` when the connection is no calendar source (yet).
    /// - Throws: ``CLIFailure`` (usage) for a base URL that is not https to a host other than loopback, or
    ///   `--calendar-api` without an API.
    static func resolve(
        api: CalendarAPI?,
        apiURL: String?,
        existing: CalendarSetting?,
        preset: ProviderPreset?,
        issuer: String?
    ) throws -> CalendarSetting? {
        let baseURL = try apiURL.map(validatedBaseURL)
        guard let api = api ?? existing?.api else {
            guard apiURL == nil else {
                throw CLIFailure(
                    .usage,
                    "--calendar-api needs --calendar",
                    fix: "Name the API, as in `--calendar google --calendar-api URL`"
                )
            }
            return nil
        }
        // The calendars chosen for the API carry over.
        let calendars = existing?.api == api ? existing?.calendars : nil
        if let baseURL { return CalendarSetting(api: api, baseURL: baseURL, calendars: calendars) }
        if let existing, existing.api == api { return existing }
        return CalendarSetting(api: api, baseURL: defaultBaseURL(api, preset: preset, issuer: issuer))
    }

    /// The base URL of `api` when none is given: the development provider's under its issuer, else the service's.
    static func defaultBaseURL(_ api: CalendarAPI, preset: ProviderPreset?, issuer: String?) -> URL {
        guard preset == .dev, let issuer, let url = URL(string: issuer) else { return api.defaultBaseURL }
        return url.appendingPathComponent(api.developmentPath)
    }

    /// The calendar API implied by the scopes a `google` or `microsoft` connection was granted: Google's
    /// `https://www.googleapis.com/auth/calendar…` scopes ("Choose Google Calendar API scopes",
    /// <https://developers.google.com/calendar/api/auth>), Microsoft Graph's `Calendars.Read` and
    /// `Calendars.ReadWrite`, bare or with the `https://graph.microsoft.com/` prefix ("Microsoft Graph
    /// permissions reference", <https://learn.microsoft.com/graph/permissions-reference>).
    static func implied(preset: ProviderPreset?, scopes: [String]) -> CalendarAPI? {
        switch preset {
        case .google where scopes.contains(where: { $0.hasPrefix("https://www.googleapis.com/auth/calendar") }):
            return .google
        case .microsoft where scopes.contains(where: isGraphCalendarScope):
            return .microsoft
        default:
            return nil
        }
    }

    private static func isGraphCalendarScope(_ scope: String) -> Bool {
        let prefix = "https://graph.microsoft.com/"
        let name = scope.lowercased().hasPrefix(prefix) ? String(scope.dropFirst(prefix.count)) : scope
        return ["calendars.read", "calendars.readwrite"].contains(name.lowercased())
    }

    /// A base URL from `--calendar-api`: https, or plain http to a loopback host only, since every request
    /// carries a bearer token (RFC 6750 section 5.3).
    static func validatedBaseURL(_ text: String) throws -> URL {
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

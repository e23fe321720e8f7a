import ArgumentParser
import Foundation
import Tether
import TetherCalendar
import TetherCommandSupport

extension CalendarAPI: ExpressibleByArgument {
    /// Reads the API from the command line, ignoring case.
    public init?(argument: String) {
        self.init(rawValue: argument.lowercased())
    }
}

extension CalendarSetting {
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
}

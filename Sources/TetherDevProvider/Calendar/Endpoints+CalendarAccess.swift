import Foundation
import Hummingbird

/// The scopes each calendar API accepts.
enum CalendarScopes {
    /// Google Calendar: `calendarList.list` needs one of these
    /// (https://developers.google.com/calendar/api/v3/reference/calendarList/list#auth).
    static let googleCalendarList = [
        "https://www.googleapis.com/auth/calendar.readonly",
        "https://www.googleapis.com/auth/calendar",
    ]
    /// Google Calendar: `events.list` accepts these
    /// (https://developers.google.com/calendar/api/v3/reference/events/list#auth).
    static let googleEvents =
        googleCalendarList + [
            "https://www.googleapis.com/auth/calendar.events.readonly",
            "https://www.googleapis.com/auth/calendar.events",
        ]
    /// Microsoft Graph: `Calendars.Read` or `Calendars.ReadWrite`, bare or as resource URIs
    /// (https://learn.microsoft.com/graph/api/user-list-calendarview#permissions).
    static let graph = ["Calendars.Read", "Calendars.ReadWrite"]

    static func grantsGraph(_ scopes: [String]) -> Bool {
        scopes.contains { scope in
            let name = scope.hasPrefix("https://graph.microsoft.com/") ? String(scope.dropFirst(28)) : scope
            return self.graph.contains { $0.caseInsensitiveCompare(name) == .orderedSame }
        }
    }
}

/// The signed-in user of a calendar request.
@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
struct CalendarCaller: Sendable {
    let username: String
    let name: String
    let email: String
    /// The provider's issuer, the origin of `htmlLink`, `webLink` and paging links.
    let issuer: String
}

@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension Endpoints {
    /// Checks the bearer token (issued by this provider, not expired, grant not revoked) and its
    /// calendar scope; throws the Google Calendar API's 401/403.
    func googleCalendarCaller(_ request: Request, scopes accepted: [String]) async throws -> CalendarCaller {
        let issuer = await self.state.issuer
        let realm = issuer + "/"
        guard let token = Self.bearerToken(request) else {
            throw CalendarAPIError.googleUnauthorized(missing: true, realm: realm)
        }
        guard case .valid(let user, let username, let scopes) = await self.state.validateAccessToken(token) else {
            throw CalendarAPIError.googleUnauthorized(missing: false, realm: realm)
        }
        guard scopes.contains(where: accepted.contains) else {
            throw CalendarAPIError.googleInsufficientScope(realm: realm, scopes: accepted)
        }
        return CalendarCaller(
            username: username,
            name: user?.name ?? username,
            email: user?.email ?? username,
            issuer: issuer
        )
    }

    /// Checks the bearer token and `Calendars.Read`; throws Microsoft Graph's 401/403.
    func graphCalendarCaller(_ request: Request) async throws -> CalendarCaller {
        let now = self.configuration.now()
        let issuer = await self.state.issuer
        let authorizationURI = issuer + "/authorize"
        guard let token = Self.bearerToken(request) else {
            throw CalendarAPIError.graphUnauthorized(
                message: "Access token is empty.",
                authorizationURI: authorizationURI,
                now: now
            )
        }
        switch await self.state.validateAccessToken(token) {
        case .valid(let user, let username, let scopes):
            guard CalendarScopes.grantsGraph(scopes) else {
                throw CalendarAPIError.graphAccessDenied(now: now)
            }
            return CalendarCaller(
                username: username,
                name: user?.name ?? username,
                email: user?.email ?? username,
                issuer: issuer
            )
        case .expired:
            throw CalendarAPIError.graphUnauthorized(
                message: "Lifetime validation failed, the token is expired.",
                authorizationURI: authorizationURI,
                now: now
            )
        case .invalid:
            throw CalendarAPIError.graphUnauthorized(
                message: "Access token validation failure.",
                authorizationURI: authorizationURI,
                now: now
            )
        }
    }

    /// A path parameter, percent-decoded.
    static func pathParameter(_ context: DevRequestContext, _ name: String) -> String {
        let raw = context.parameters.get(name) ?? ""
        return raw.removingPercentEncoding ?? raw
    }

    /// Parses a query timestamp; tolerates a `+` offset that arrived unencoded (read as a space).
    static func queryInstant(_ text: String, assumedZone: TimeZone? = nil) -> Date? {
        if let date = CalendarTime.parse(text, assumedZone: assumedZone) {
            return date
        }
        guard let space = text.lastIndex(of: " ") else { return nil }
        var repaired = text
        repaired.replaceSubrange(space...space, with: "+")
        return CalendarTime.parse(repaired, assumedZone: assumedZone)
    }
}

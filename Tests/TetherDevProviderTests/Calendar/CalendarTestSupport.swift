import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import TetherDevProvider

enum CalendarFixture {
    static let googleScope = "https://www.googleapis.com/auth/calendar.readonly"
    static let graphScope = "Calendars.Read"
    /// `ManualClock` starts on Friday 2027-01-15 08:00 UTC, so seeded day 0 is Monday 2027-01-11.
    static let epoch = "2027-01-11T00:00:00Z"
}

/// A token for a user with the given scopes, minted through the admin API.
func calendarToken(
    _ provider: DevProvider,
    user: String = "ada",
    scopes: [String] = [CalendarFixture.googleScope, CalendarFixture.graphScope]
) async throws -> String {
    try await provider.admin.issueTokens(username: user, scopes: scopes).accessToken
}

/// A path segment or query value with everything but RFC 3986 unreserved characters percent-encoded.
func percentEncoded(_ value: String) -> String {
    String(formBody([("", value)]).dropFirst())
}

/// The string values of one key across items.
func strings(_ items: [[String: Any]], _ key: String) -> [String] {
    items.compactMap { $0[key] as? String }
}

/// A query string with every value percent-encoded.
func query(_ items: [(String, String)]) -> String {
    items.isEmpty ? "" : "?" + formBody(items)
}

extension TestClientProtocol {
    func api(_ uri: String, token: String?, prefer: [String] = []) async throws -> TestResponse {
        var headers = HTTPFields()
        if let token {
            headers[.authorization] = "Bearer \(token)"
        }
        for preference in prefer {
            headers.append(HTTPField(name: HTTPField.Name("Prefer")!, value: preference))
        }
        // Links are absolute (the provider's issuer); the router client wants path and query.
        let path =
            uri.hasPrefix(Fixture.issuer.absoluteString)
            ? String(uri.dropFirst(Fixture.issuer.absoluteString.count)) : uri
        return try await self.execute(uri: path, method: .get, headers: headers)
    }

    func adminRequest(
        _ uri: String,
        method: HTTPRequest.Method,
        json: String = "{}",
        adminKey: String
    ) async throws -> TestResponse {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[HTTPField.Name("X-Tether-Admin")!] = adminKey
        return try await self.execute(uri: uri, method: method, headers: headers, body: ByteBuffer(string: json))
    }
}

extension TestResponse {
    /// `items` (Google) or `value` (Graph) of a JSON collection.
    func items(_ key: String = "items") throws -> [[String: Any]] {
        try #require(try self.json()[key] as? [[String: Any]], "no \(key) in \(self.text)")
    }

    /// Google's `error.errors[0].reason`, or Graph's `error.code`.
    func errorReason() throws -> String? {
        let error = try #require(try self.json()["error"] as? [String: Any])
        if let errors = error["errors"] as? [[String: Any]] {
            return errors.first?["reason"] as? String
        }
        return error["code"] as? String
    }
}

extension [String: Any] {
    subscript(path keys: String...) -> Any? {
        var current: Any? = self
        for key in keys {
            current = (current as? [String: Any])?[key]
        }
        return current
    }
}

/// Runs `body` against the router of a fresh provider, with a token for "ada" carrying both calendar scopes.
func withCalendarClient(
    _ body: @Sendable (DevProvider, any TestClientProtocol, String) async throws -> Void
) async throws {
    let (provider, _) = makeProvider()
    let token = try await calendarToken(provider)
    try await provider.application().test(.router) { client in try await body(provider, client, token) }
}

import Foundation
import HTTPTypes
import Tether
import TetherCalendar
import TetherJWT
import TetherOAuth

/// The fuzz targets: each runs one input through the same parsing code the library runs on data from the network
/// or the disk, and checks that nothing traps and that no planted secret is echoed into an error.
///
/// Inputs that need a choice (which provider, which HTTP status, raw or sealed) take it from their first byte; the
/// seed corpora in Fuzz/Corpus follow that layout.
enum FuzzTarget: String, CaseIterable, Sendable {
    /// `AuthorizationRequest.callback(from:requiringIssuer:)` on a redirect URL (RFC 6749 §4.1.2, RFC 9207).
    case callback
    /// The token endpoint's answer (RFC 6749 §5.1, §5.2): first byte picks the status, the rest is the body.
    case token
    /// A compact JWS and its claims (RFC 7515 §7.1, RFC 7519): first byte 0 takes the rest as the token, 1 splits
    /// the rest at its first NUL into header and payload JSON and encodes them.
    case jws
    /// An OpenID Connect Discovery / RFC 8414 metadata document.
    case discovery
    /// A vault record file (VaultRecordFormat) under a fixed test key: first byte 0 takes the rest as the file,
    /// 1 seals the rest as the record's plaintext first, so the record decoding is reached.
    case vault
    /// A `WWW-Authenticate` value (RFC 9110 §11.6.1, RFC 6750 §3).
    case wwwAuthenticate = "www-authenticate"
    /// A calendar events page: first byte 0 is Google Calendar's `events.list`, 1 Microsoft Graph's
    /// `calendarView`/delta page.
    case calendar

    /// Runs one input.
    func run(_ data: Data) {
        switch self {
        case .callback: Self.callback(data)
        case .token: Self.token(data)
        case .jws: Self.jws(data)
        case .discovery: Self.discovery(data)
        case .vault: Self.vault(data)
        case .wwwAuthenticate: _ = AuthenticationChallenge.parse(String(decoding: data, as: UTF8.self))
        case .calendar: Self.calendar(data)
        }
    }

    // MARK: - Targets

    private static let issuer = "https://issuer.example"
    private static let redirectURI = URL(string: "http://127.0.0.1:53682/callback")!
    private static let state = "st-" + SecretCheck.marker

    private static func callback(_ data: Data) {
        guard let url = URL(string: String(decoding: data, as: UTF8.self)) else { return }
        let request = AuthorizationRequest(
            url: URL(string: "\(issuer)/authorize")!,
            redirectURI: redirectURI,
            issuer: issuer,
            scopes: ["openid"],
            state: state,
            nonce: "n-0S6_WzA2Mj",
            codeVerifier: CodeVerifier("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        )
        // The marker may be quoted only when the input put it outside the secret `code` and `state` values.
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let quotable = (components?.queryItems ?? []).filter { $0.name != "code" && $0.name != "state" }
        let markerIsQuotable =
            quotable.contains { item in
                // Quoted values are sanitized first, which can join the marker's halves around a control character.
                let text = "\(item.name)=\(item.value ?? "")"
                return text.contains(SecretCheck.marker) || UntrustedText.sanitized(text).contains(SecretCheck.marker)
            }
            || (components?.path ?? "").contains(SecretCheck.marker)
            || (components?.host ?? "").contains(SecretCheck.marker)
        for requiringIssuer in [false, true] {
            do {
                let callback = try request.callback(from: url, requiringIssuer: requiringIssuer)
                SecretCheck.check(["\(callback)", "\(callback.code)"], target: "callback", what: "the callback")
            } catch {
                if !markerIsQuotable { SecretCheck.check(error, target: "callback") }
            }
        }
    }

    private static let tokenEndpoint = URL(string: "https://issuer.example/oauth2/token")!
    private static let clients: [OAuthClient] = [false, true].map { idTokenIsAccessToken in
        let configuration = ProviderConfiguration(
            providerID: "fuzz",
            issuer: issuer,
            authorizationEndpoint: URL(string: "\(issuer)/authorize")!,
            tokenEndpoint: tokenEndpoint,
            clientID: "fuzz-client",
            redirectURI: redirectURI,
            idTokenIsAccessToken: idTokenIsAccessToken
        )
        return try! OAuthClient(configuration: configuration, transport: NoTransport())
    }
    private static let statuses: [HTTPResponse.Status] = [.ok, .badRequest, .unauthorized, .tooManyRequests, 503]

    private static func token(_ data: Data) {
        guard let selector = data.first else { return }
        let body = Data(data.dropFirst())
        var response = HTTPResponse(status: statuses[Int(selector & 0x7) % statuses.count])
        response.headerFields[.contentType] = selector & 0x8 == 0 ? "application/json" : "text/html"
        if selector & 0x10 != 0 { response.headerFields[.retryAfter] = "7" }
        let client = clients[Int(selector >> 7)]
        let markerIsQuotable = SecretCheck.markerOutsideSecrets(
            ofJSON: body,
            secretKeys: ["access_token", "refresh_token", "id_token"]
        )
        do {
            guard response.status.kind == .successful else {
                throw client.errorResponse(response, body, endpoint: tokenEndpoint)
            }
            let parsed = try client.parseTokenResponse(response, body, endpoint: tokenEndpoint)
            if !markerIsQuotable {
                SecretCheck.check(["\(parsed)", "\(parsed.accessToken)"], target: "token", what: "the token response")
            }
        } catch {
            if !markerIsQuotable { SecretCheck.check(error, target: "token") }
        }
    }

    private static func jws(_ data: Data) {
        guard let mode = data.first else { return }
        let rest = data.dropFirst()
        let compact: String
        if mode & 1 == 0 {
            compact = String(decoding: rest, as: UTF8.self)
        } else {
            let parts = rest.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
            let header = parts.first ?? Data()
            let payload = parts.count > 1 ? parts[1] : Data()
            compact = "\(Base64URL.encode(header)).\(Base64URL.encode(payload)).c2lnbmF0dXJl"
        }
        // A token is a bearer credential: no error may carry any part of it, wherever the marker sits.
        do {
            let token = try CompactJWS(compact)
            _ = try JWTClaimSet(decoding: token.payload)
        } catch {
            SecretCheck.check(error, target: "jws")
        }
    }

    private static func discovery(_ data: Data) {
        // The client secret is the planted secret here; the document itself is public and may be quoted.
        let markerInInput = data.range(of: Data(SecretCheck.marker.utf8)) != nil
        do {
            let configuration = try ProviderConfiguration.configuration(
                metadata: data,
                from: URL(string: "\(issuer)/.well-known/openid-configuration")!,
                issuer: issuer,
                clientID: "fuzz-client",
                clientSecret: ClientSecret(SecretCheck.marker),
                scopes: nil,
                redirectURI: redirectURI,
                providerID: nil
            )
            if !markerInInput {
                SecretCheck.check(["\(configuration)"], target: "discovery", what: "the configuration")
            }
        } catch {
            if !markerInInput { SecretCheck.check(error, target: "discovery") }
        }
    }

    /// A fixed test key (32 bytes 0x01…0x20); never used outside the fuzz targets.
    static let vaultKey = try! VaultKey(base64: Data((1...32).map { UInt8($0) }).base64EncodedString())
    static let vaultID = ConnectionID("fuzz-connection")

    private static func vault(_ data: Data) {
        guard let mode = data.first else { return }
        let rest = Data(data.dropFirst())
        do {
            let file =
                mode & 1 == 0
                ? rest : try VaultRecordFormat.seal(plaintext: rest, id: vaultID, key: vaultKey)
            let connection = try VaultRecordFormat.open(file, id: vaultID, key: vaultKey)
            // Scopes, the token type, the account and the metadata are not secrets and are shown as they are: the
            // check applies when the marker reached none of them.
            let shown =
                (connection.tokens.scopes ?? []).joined(separator: " ") + connection.tokens.tokenType
                + "\(connection.account)" + "\(connection.metadata)"
            if !shown.contains(SecretCheck.marker) {
                SecretCheck.check(["\(connection)", "\(connection.tokens)"], target: "vault", what: "the record")
            }
        } catch {
            // Record contents are secrets wherever they sit: no error quotes them.
            SecretCheck.check(error, target: "vault")
        }
    }

    private static let calendarInfo = CalendarInfo(id: "primary", name: "Fuzz", isPrimary: true)

    private static func calendar(_ data: Data) {
        guard let mode = data.first else { return }
        let page = Data(data.dropFirst())
        // Event text (titles, descriptions, locations, which carry meeting passcodes) is planted with the marker;
        // errors and skip reasons name fields and events, never quote their text.
        let markerIsQuotable = SecretCheck.markerOutsideSecrets(
            ofJSON: page,
            secretKeys: ["summary", "description", "location", "subject", "body", "bodyPreview", "content"]
        )
        do {
            let batch =
                mode & 1 == 0
                ? try GoogleCalendarClient.decodeEventsPage(page, source: "google", calendar: calendarInfo)
                : try GraphCalendarClient.decodeEventsPage(page, source: "graph", calendar: calendarInfo)
            if !markerIsQuotable {
                for skipped in batch.skipped {
                    SecretCheck.check(skipped.reason, target: "calendar")
                }
            }
        } catch {
            if !markerIsQuotable { SecretCheck.check(error, target: "calendar") }
        }
    }
}

/// The token and discovery targets parse bodies directly; nothing is ever sent.
private struct NoTransport: HTTPTransport {
    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        throw TransportError.cannotConnect.with(message: "The fuzz targets send nothing")
    }
}

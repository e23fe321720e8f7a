public import Foundation
import HTTPTypes
import Logging
public import Tether

/// Names a device code in redacted descriptions.
public enum DeviceCodeKind: SecretKind {
    /// `DeviceCode`.
    public static var label: String { "DeviceCode" }
}

/// An RFC 8628 device code: a credential until it expires.
public typealias DeviceCode = Secret<DeviceCodeKind>

/// What the user needs to approve a device sign-in (RFC 8628 §3.2), and what the client polls with.
public struct DeviceAuthorization: Sendable, CustomStringConvertible {
    /// The code the user types at ``verificationURI``, without control characters and at most 200 characters long.
    public let userCode: String
    /// Where the user goes: always an `https` URL, or `http` to a loopback host (a development provider).
    public let verificationURI: URL
    /// The same page with the code filled in, if the provider offers it (for a QR code); `nil` also when the
    /// provider's is not `https` (or `http` to a loopback host), which is then neither shown nor opened.
    public let verificationURIComplete: URL?
    /// When the device code expires: the provider's `expires_in`, at most an hour after the answer arrived.
    public let expiresAt: Date
    /// How long to wait between polls; 5 seconds when the provider says nothing (RFC 8628 §3.2), and between
    /// 1 second and 1 minute whatever it says.
    public let interval: Duration
    let deviceCode: DeviceCode
    let scopes: [String]

    /// `DeviceAuthorization(WDJB-MJHT at https://…)`; the device code stays hidden.
    public var description: String { "DeviceAuthorization(\(userCode) at \(verificationURI.absoluteString))" }
}

extension OAuthClient {
    /// Starts a device authorization (RFC 8628 §3.1).
    /// - Parameter scopes: The scopes; by default the configured ones.
    /// - Returns: The user code and verification URI to show.
    /// - Throws: ``OAuthError``: ``OAuthError/invalidVerificationURI`` when `verification_uri` is not `https` (nor
    ///   `http` to a loopback host), ``OAuthError/invalidExpiresIn`` when `expires_in` is not a lifetime in seconds;
    ///   ``ProviderConfigurationError/missingEndpoint`` without a device endpoint.
    public func startDeviceAuthorization(scopes: [String]? = nil) async throws -> DeviceAuthorization {
        guard let endpoint = configuration.deviceAuthorizationEndpoint else {
            throw ProviderConfigurationError.missingEndpoint.with(
                message: "\(configuration.providerID) has no device_authorization_endpoint"
            )
        }
        let scopes = scopes ?? configuration.scopes
        var form: [(String, String)] = []
        if !scopes.isEmpty { form.append(("scope", scopes.joined(separator: " "))) }
        // RFC 8628 §3.1 requires `client_id` only from a client that does not authenticate, but oauthlib-based
        // servers (django-oauth-toolkit) refuse the request without it even beside HTTP Basic.
        let (response, received) = try await post(endpoint, form: form, clientIDInBody: true)
        let receivedAt = dateSource.now
        // Read like the token endpoint's answers: form-encoded (GitHub without `Accept: application/json`) or JSON,
        // an `error` with HTTP 200 (GitHub) an error.
        let body = Self.formAsJSON(response, received) ?? received
        let object = JSONValue.object(from: body)
        let errorInSuccess = object.map { $0["device_code"] == nil && $0["error"]?.string != nil } == true
        guard response.status.kind == .successful, !errorInSuccess else {
            throw errorResponse(response, body, endpoint: endpoint)
        }
        guard let object else { throw Self.notJSON(response, body, endpoint: endpoint) }
        // Microsoft spells it verification_url.
        let verification = (object["verification_uri"] ?? object["verification_url"])?.string.flatMap(URL.init(string:))
        let expiry = Self.readExpiresIn(object["expires_in"])
        guard let deviceCode = object["device_code"]?.string, let userCode = object["user_code"]?.string,
            let verification, expiry != .absent
        else {
            throw OAuthError.malformedResponse.with(
                message: "The device authorization response of \(Self.redacted(endpoint)) lacks a required member"
            )
        }
        // The person is sent to this page to approve a sign-in: a page in the clear could be replaced on the way
        // (RFC 8628 §5.4, remote phishing), and a scheme other than http(s) is no web page at all.
        guard Self.isSecureWebPage(verification) else {
            throw OAuthError.invalidVerificationURI.with(
                message: "The device authorization response of \(Self.redacted(endpoint)) has a verification_uri "
                    + "that is not an https URL (plain http is allowed only to 127.0.0.1, ::1 or localhost)"
            )
        }
        let lifetime: Duration
        switch expiry {
        case .seconds(let seconds): lifetime = min(.seconds(seconds), Self.maximumDeviceCodeLifetime)
        case .invalid(.tooLarge): lifetime = Self.maximumDeviceCodeLifetime
        case .invalid(let problem):
            throw Self.invalidExpiresIn(problem, in: "device authorization response", endpoint: endpoint)
        case .absent: lifetime = .zero
        }
        let complete = object["verification_uri_complete"]?.string.flatMap(URL.init(string:))
        if complete.map(Self.isSecureWebPage) == false {
            logger.info(
                "The device authorization's verification_uri_complete is not an https URL; it is not shown",
                metadata: ["oauth.field": "verification_uri_complete"]
            )
        }
        let interval = Self.pollingInterval(object["interval"])
        logger.debug("Started device authorization", metadata: ["oauth.grant_type": "device_code"])
        return DeviceAuthorization(
            userCode: UntrustedText.sanitized(userCode),
            verificationURI: verification,
            verificationURIComplete: complete.flatMap { Self.isSecureWebPage($0) ? $0 : nil },
            expiresAt: receivedAt.addingTimeInterval(lifetime.timeInterval),
            interval: interval,
            deviceCode: DeviceCode(deviceCode),
            scopes: scopes
        )
    }

    /// The polling intervals a device authorization may ask for: 1 second to 1 minute. A provider asking for more
    /// (or `slow_down` raising the interval past it, or a `Retry-After` longer than it) is polled every minute, so
    /// that a hostile number cannot stall the wait for the person approving; one asking for less, every second.
    /// Real providers ask for 5 seconds (Google, Microsoft, GitHub).
    static let pollingIntervals: ClosedRange<Duration> = .seconds(1) ... .seconds(60)

    /// The longest a device code is waited for: an hour. Providers give 10 to 30 minutes (Microsoft 900 s, Google
    /// 1800 s, GitHub 900 s); a longer `expires_in`, up to 1e300, is cut to it.
    static let maximumDeviceCodeLifetime: Duration = .seconds(3600)

    /// Whether `url` is a page a person may be sent to: `https` with a host, or `http` to a loopback host (the
    /// development provider), as every endpoint Tether talks to.
    static func isSecureWebPage(_ url: URL) -> Bool {
        guard let host = url.host, !host.isEmpty else { return false }
        switch url.scheme?.lowercased() {
        case "https"?: return true
        case "http"?: return LoopbackHost.contains(host)
        default: return false
        }
    }

    /// The `interval` of a device authorization response (RFC 8628 §3.2): whole seconds, rounded up and kept within
    /// ``pollingIntervals``; a numeric string (a form-encoded answer) counts as its number; 5 seconds when absent
    /// or not a number.
    static func pollingInterval(_ value: JSONValue?) -> Duration {
        let number: Double? =
            switch value {
            case .number(let number)?: number
            case .string(let text)?: Double(text.trimmingCharacters(in: .whitespaces))
            default: nil
            }
        guard let seconds = number, seconds.isFinite else { return .seconds(5) }
        let bounds = pollingIntervals
        let clamped = min(
            max(seconds.rounded(.up), Double(bounds.lowerBound.components.seconds)),
            Double(bounds.upperBound.components.seconds)
        )
        return .seconds(Int64(clamped))
    }

    /// Polls the token endpoint until the user approves or denies, or the device code expires (RFC 8628 §3.4,
    /// §3.5): `authorization_pending` waits one interval, `slow_down` adds 5 seconds to this and every later
    /// interval (or sets the interval the provider names, when longer, as GitHub does), transient failures wait
    /// and try again. GitHub's `incorrect_device_code` ends the wait like an expired code.
    /// - Parameter authorization: What ``startDeviceAuthorization(scopes:)`` returned.
    /// - Returns: The account and tokens.
    /// - Throws: ``OAuthError/accessDenied``, ``OAuthError/deviceCodeExpired``, another ``OAuthError``, or
    ///   `CancellationError`.
    public func waitForDeviceAuthorization(_ authorization: DeviceAuthorization) async throws -> SignInResult {
        var interval = authorization.interval
        while true {
            try await clock.sleep(for: interval)
            guard dateSource.now < authorization.expiresAt else {
                throw OAuthError.deviceCodeExpired
            }
            let form = [
                ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                ("device_code", authorization.deviceCode.revealedValue),
            ]
            do {
                let (response, receivedAt) = try await tokenRequest(form, grantType: "device_code")
                let tokens = TokenSet(response, receivedAt: receivedAt)
                // OpenID Connect defines no ID token for the device grant (RFC 8628 is OAuth 2.0 only): verify one
                // when present, never require it.
                let claims = try await verifiedClaims(of: response.idToken, nonce: nil, required: false)
                return SignInResult(
                    account: await account(claims: claims, tokens: tokens, requestedScopes: authorization.scopes),
                    tokens: tokens,
                    idTokenClaims: claims,
                    missingScopes: missingScopes(
                        requested: authorization.scopes,
                        granted: response.scopes,
                        grantType: "device_code"
                    )
                )
            } catch let error as OAuthError {
                switch error.errorCode {
                case OAuthErrorCode.authorizationPending?:
                    continue
                case OAuthErrorCode.slowDown?:
                    // RFC 8628 §3.5: 5 seconds more for this and every later poll; GitHub also names the new interval,
                    // which is kept when longer.
                    interval = min(
                        max(interval + .seconds(5), error.retryAfter ?? .zero),
                        Self.pollingIntervals.upperBound
                    )
                    logger.debug("Device polling slowed down", metadata: ["oauth.interval": "\(interval)"])
                    continue
                case OAuthErrorCode.accessDenied?, OAuthErrorCode.authorizationDeclined?:
                    throw OAuthError.accessDenied.with(httpStatus: error.httpStatus)
                case OAuthErrorCode.expiredToken?, OAuthErrorCode("bad_verification_code")?,
                    OAuthErrorCode("incorrect_device_code")?:
                    throw OAuthError.deviceCodeExpired.with(httpStatus: error.httpStatus)
                default:
                    guard error.classification == .transient else { throw error }
                    logger.debug(
                        "Device polling failed transiently; polling on",
                        metadata: ["oauth.error": "\(error.message)"]
                    )
                    if let retryAfter = error.retryAfter, retryAfter > interval {
                        try await clock.sleep(for: min(retryAfter, Self.pollingIntervals.upperBound) - interval)
                    }
                }
            }
        }
    }
}

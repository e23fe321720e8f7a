import Foundation
import Tether

/// The error body of a provider, in any of the shapes providers use, and what it means for a session.
struct ProviderErrorBody: Sendable {
    var code: OAuthErrorCode
    var description: String?
    var uri: String?
    /// Google `error_subtype`, Microsoft's first `AADSTS` number or `suberror`.
    var detail: String?
    /// Microsoft's `AADSTS` number: the first of `error_codes`, else the one `error_description` starts with.
    var aadsts: Int?

    /// Creates an error body from what a provider sent; every text is sanitized (``Tether/UntrustedText``), as it
    /// ends up in messages, logs and on terminals.
    init(code: String, description: String?, uri: String?, detail: String?) {
        self.code = OAuthErrorCode(UntrustedText.sanitized(code))
        self.description = UntrustedText.sanitized(description)
        self.uri = UntrustedText.sanitized(uri)
        self.detail = UntrustedText.sanitized(detail)
    }

    /// Parses RFC 6749 §5.2 (`{"error":"…"}` with Google and Microsoft extras) and Google API / Firebase
    /// (`{"error":{"code":400,"message":"TOKEN_EXPIRED","status":"…"}}`) bodies.
    static func parse(_ data: Data) -> ProviderErrorBody? {
        guard let object = JSONValue.object(from: data) else { return nil }
        if let code = object["error"]?.string, !code.isEmpty {
            var detail = object["error_subtype"]?.string ?? object["suberror"]?.string
            let description = object["error_description"]?.string
            // Microsoft's numbers are small positive integers; anything else (1e300, -1, 2.5) is not one of them.
            var aadsts: Int?
            if let first = object["error_codes"]?.array?.first?.number, let number = Int(exactly: first), number >= 0 {
                aadsts = number
            } else if let description {
                aadsts = Self.aadstsNumber(in: description)
            }
            if let aadsts { detail = "AADSTS\(aadsts)" + (detail.map { " (\($0))" } ?? "") }
            var body = ProviderErrorBody(
                code: code,
                description: description,
                uri: object["error_uri"]?.string,
                detail: detail
            )
            body.aadsts = aadsts
            return body
        }
        if let nested = object["error"]?.object, let message = nested["message"]?.string {
            // Firebase puts its code first in `message`, sometimes followed by " : detail".
            let code = message.split(separator: " ", maxSplits: 1).first.map(String.init) ?? message
            return ProviderErrorBody(
                code: code,
                description: message,
                uri: nil,
                detail: nested["status"]?.string
            )
        }
        return nil
    }

    /// The number of `AADSTS50173: …` at the start of a Microsoft `error_description`, for bodies without
    /// `error_codes`.
    static func aadstsNumber(in description: String) -> Int? {
        guard description.hasPrefix("AADSTS") else { return nil }
        let digits = description.dropFirst(6).prefix { $0.isASCII && $0.isNumber }
        guard (1...9).contains(digits.count) else { return nil }
        return Int(digits)
    }

    /// What the error means for a session: transient when the HTTP status says so, else decided by the code, never
    /// by the description text (Google and Microsoft both say so). The description and Microsoft's `AADSTS` number
    /// only choose the words of the ``Tether/SignInReason`` (see ``signInReason(_:)``).
    /// - Parameter verdict: What the response's status says about retrying; `.permanent` for an error that came in
    ///   a redirect, which has no status.
    func classification(_ verdict: FailureClassifier.Verdict) -> RefreshError.Kind {
        if verdict.isTransient { return .transient }
        switch code.rawValue {
        case "invalid_grant":
            if detail == "invalid_rapt" || detail == "rapt_required" || [50076, 50079, 70043, 65001].contains(aadsts) {
                return .permanent(signInReason(.interactionRequired))
            }
            return .permanent(signInReason(.grantRevoked))
        case "interaction_required", "consent_required", "login_required", "account_selection_required":
            return .permanent(signInReason(.interactionRequired))
        case "access_denied", "authorization_declined":
            return .permanent(SignInReason(code: "access_denied", message: "The user denied access"))
        case "expired_token":
            return .permanent(.sessionExpired)
        case "temporarily_unavailable", "server_error":
            return .transient
        // Firebase secure-token API (https://firebase.google.com/docs/reference/rest/auth#section-refresh-token).
        case "TOKEN_EXPIRED", "INVALID_REFRESH_TOKEN", "INVALID_ID_TOKEN", "CREDENTIAL_TOO_OLD_LOGIN_AGAIN":
            return .permanent(.grantRevoked)
        case "USER_DISABLED":
            return .permanent(.userDisabled)
        case "USER_NOT_FOUND":
            return .permanent(SignInReason(code: "user_not_found", message: "The account no longer exists"))
        default:
            return .configuration
        }
    }

    /// The reason, in plain words with what to do, for a refusal of class `base` (whose code it keeps): from
    /// Microsoft's `AADSTS` number, from Google's description, else from the RFC 6749 §5.2 `error` alone.
    func signInReason(_ base: SignInReason) -> SignInReason {
        if let aadsts, let message = Self.microsoftReasons[aadsts] {
            return SignInReason(code: base.code, message: message + " (AADSTS\(aadsts))")
        }
        if detail == "invalid_rapt" || detail == "rapt_required" {
            return SignInReason(
                code: base.code,
                message: "Google asks the user to confirm their identity again, as the Google Workspace "
                    + "administrator's reauthentication policy requires; sign in again"
            )
        }
        if code == .invalidGrant, description == Self.googleExpiredOrRevoked {
            return SignInReason(code: base.code, message: Self.googleExpiredOrRevokedReason)
        }
        let said = "\(code)" + (detail.map { ", \($0)" } ?? "")
        switch base.code {
        case SignInReason.interactionRequired.code:
            return SignInReason(
                code: base.code,
                message: "The provider needs the user to sign in again (\(said)); sign in again"
            )
        default:
            return SignInReason(
                code: base.code,
                message: "The provider no longer accepts this sign-in (\(said)); sign in again"
            )
        }
    }

    /// Google's description of a refresh token that is revoked or expired
    /// (https://developers.google.com/identity/protocols/oauth2#expiration).
    static let googleExpiredOrRevoked = "Token has been expired or revoked."

    /// What Google's "Token has been expired or revoked." means. Google does not say which cause it was; the
    /// seven days of apps in Testing are the one a developer can fix
    /// (https://developers.google.com/identity/protocols/oauth2#expiration).
    static let googleExpiredOrRevokedReason =
        "Google no longer accepts this sign-in: it expired or was revoked (access removed in the Google Account, "
        + "a password change, or six months without use); sign in again. If this happens about seven days after "
        + "signing in, the app's OAuth consent screen is still in Testing, whose refresh tokens live seven days; "
        + "publish the app to keep sign-ins"

    /// Microsoft Entra's `AADSTS` numbers that end a refresh, in plain words with what to do
    /// (https://learn.microsoft.com/entra/identity-platform/reference-error-codes). Microsoft asks clients to
    /// react to `error`, not to these numbers, so they only choose the words.
    static let microsoftReasons: [Int: String] = [
        700_082: "Microsoft ended the sign-in because it was not used for too long; sign in again",
        70008: "Microsoft ended the sign-in because it expired or was not used for too long; sign in again",
        50173: "Microsoft revoked the sign-in, as it does after the account's password is changed or reset; "
            + "sign in again with the current password",
        50076: "Microsoft now requires multi-factor authentication for this account; sign in again and complete "
            + "the second step",
        50079: "Microsoft now requires this account to set up multi-factor authentication; sign in again and "
            + "register a second factor",
        65001: "The consent to this app is missing or was withdrawn; sign in again and grant access, or ask an "
            + "administrator to consent for the organization",
        700_084: "The sign-in of this single-page app reached its fixed lifetime (24 hours), which cannot be "
            + "extended; sign in again",
        70043: "The organization's Conditional Access policy requires signing in again at a set frequency; sign "
            + "in again",
        50057: "The account was disabled; ask its administrator, then sign in again",
    ]
}

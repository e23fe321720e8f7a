import Foundation
import Tether

/// The error body of a provider, in any of the shapes providers use, and what it means for a session.
struct ProviderErrorBody: Sendable {
    var code: OAuthErrorCode
    var description: String?
    var uri: String?
    /// Google `error_subtype`, Microsoft's first `AADSTS` number or `suberror`.
    var detail: String?

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
            // Microsoft's numbers are small positive integers; anything else (1e300, -1, 2.5) is not one of them.
            if let first = object["error_codes"]?.array?.first?.number, let number = Int(exactly: first), number >= 0 {
                detail = "AADSTS\(number)" + (detail.map { " (\($0))" } ?? "")
            }
            return ProviderErrorBody(
                code: code,
                description: object["error_description"]?.string,
                uri: object["error_uri"]?.string,
                detail: detail
            )
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

    /// What the error means for a session: transient when the HTTP status says so, else decided by the code, never
    /// by the description text (Google and Microsoft both say so).
    /// - Parameter verdict: What the response's status says about retrying; `.permanent` for an error that came in
    ///   a redirect, which has no status.
    func classification(_ verdict: RetryPolicy.Verdict) -> RefreshError.Kind {
        if verdict.isTransient { return .transient }
        switch code.rawValue {
        case "invalid_grant":
            if detail == "invalid_rapt" || detail == "rapt_required" || detail?.hasPrefix("AADSTS50076") == true
                || detail?.hasPrefix("AADSTS50079") == true || detail?.hasPrefix("AADSTS70043") == true
            {
                return .permanent(.interactionRequired)
            }
            return .permanent(.grantRevoked)
        case "interaction_required", "consent_required", "login_required", "account_selection_required":
            return .permanent(.interactionRequired)
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
}

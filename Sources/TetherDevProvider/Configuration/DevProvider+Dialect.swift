@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension DevProvider {
    /// Which provider's token-response and error shapes the dev provider imitates.
    public struct Dialect: Hashable, Sendable, CustomStringConvertible {
        enum Kind: String, Sendable {
            case standard
            case google
            case microsoft
            case firebase
            case apple
            case github
        }

        let kind: Kind

        /// Plain RFC 6749 / 7009 / 9700 behaviour with refresh-token rotation.
        public static let standard = Dialect(kind: .standard)
        /// Google: `scope` in token responses, no refresh-token rotation, refresh responses without
        /// `refresh_token`, `invalid_grant` "Token has been expired or revoked.", revocation of an
        /// unknown token answers 400 `invalid_token`.
        public static let google = Dialect(kind: .google)
        /// Microsoft identity platform: `AADSTS` error bodies (`error_codes`, `timestamp`, `trace_id`,
        /// `correlation_id`, `error_uri`), `ext_expires_in`, rotation.
        public static let microsoft = Dialect(kind: .microsoft)
        /// Firebase secure-token API at `POST /v1/token?key=…`: `expires_in` as a string, `user_id`,
        /// `project_id`, Google API error bodies.
        public static let firebase = Dialect(kind: .firebase)
        /// Sign in with Apple: ES256 client-secret JWTs, no rotation, `/auth/revoke`.
        public static let apple = Dialect(kind: .apple)
        /// GitHub: its paths (`/login/oauth/authorize`, `/login/oauth/access_token`, `/login/device/code`,
        /// `GET /user`, `DELETE /applications/{client_id}/grant`, also under `/api/v3`), token answers
        /// form-encoded unless JSON is accepted, errors with HTTP 200 and GitHub's codes, `token_type` `bearer`,
        /// comma-separated `scope`, no `expires_in` without a refresh token, rotation, no OpenID Connect.
        public static let github = Dialect(kind: .github)

        /// The dialect's name (`standard`, `google`, …).
        public var description: String { self.kind.rawValue }

        /// Whether refreshes issue a new refresh token (when rotation is configured).
        var rotatesRefreshTokens: Bool {
            self.kind == .standard || self.kind == .microsoft || self.kind == .github
        }
    }

    /// The format of issued access tokens.
    public struct AccessTokenFormat: Hashable, Sendable {
        enum Kind: Sendable {
            case opaque
            case jwt
        }

        let kind: Kind

        /// Random opaque strings.
        public static let opaque = AccessTokenFormat(kind: .opaque)
        /// RFC 9068 JWTs (`typ: at+jwt`), signed like ID tokens.
        public static let jwt = AccessTokenFormat(kind: .jwt)
    }

    /// When the token endpoint issues a refresh token.
    public struct RefreshTokenIssuance: Hashable, Sendable {
        let isUnconditional: Bool

        /// On every code exchange and device grant.
        public static let always = RefreshTokenIssuance(isUnconditional: true)
        /// Only when the grant includes the `offline_access` scope.
        public static let withOfflineAccess = RefreshTokenIssuance(isUnconditional: false)
    }
}

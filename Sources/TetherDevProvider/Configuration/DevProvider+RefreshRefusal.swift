@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension DevProvider {
    /// A reason to refuse a refresh that real providers give, rendered in the configured dialect: Microsoft's
    /// `AADSTS` bodies carry the number
    /// (https://learn.microsoft.com/entra/identity-platform/reference-error-codes), Google says "Token has been
    /// expired or revoked.", the standard dialect says `invalid_grant`.
    public struct RefreshRefusal: Hashable, Sendable, CustomStringConvertible {
        /// Microsoft's `AADSTS` number.
        let aadsts: Int
        /// Microsoft's description (paraphrased from its error code reference).
        let message: String
        let name: String

        /// `AADSTS700082`: the refresh token expired after a period without use.
        public static let inactivity = RefreshRefusal(
            aadsts: 700_082,
            message: "The refresh token has expired due to inactivity.",
            name: "inactivity"
        )
        /// `AADSTS70008`: the grant expired or was revoked (refresh token inactivity, in Microsoft's reference).
        public static let expiredGrant = RefreshRefusal(
            aadsts: 70008,
            message: "The provided authorization code or refresh token has expired due to inactivity.",
            name: "expiredGrant"
        )
        /// `AADSTS50173`: the grant was revoked, for example after a password change or reset.
        public static let passwordChanged = RefreshRefusal(
            aadsts: 50173,
            message: "The provided grant has expired due to it being revoked, a fresh auth token is needed. "
                + "The user might have changed or reset their password.",
            name: "passwordChanged"
        )
        /// `AADSTS50076`: multi-factor authentication is now required.
        public static let multiFactorRequired = RefreshRefusal(
            aadsts: 50076,
            message: "Due to a configuration change made by your administrator, or because you moved to a new "
                + "location, you must use multi-factor authentication to access the resource.",
            name: "multiFactorRequired"
        )
        /// `AADSTS50079`: the user must register for multi-factor authentication.
        public static let multiFactorRegistrationRequired = RefreshRefusal(
            aadsts: 50079,
            message: "Due to a configuration change made by your administrator, or because you moved to a new "
                + "location, you must enroll in multi-factor authentication to access the resource.",
            name: "multiFactorRegistrationRequired"
        )
        /// `AADSTS65001`: the user or administrator has not consented to the app, or withdrew consent.
        public static let consentWithdrawn = RefreshRefusal(
            aadsts: 65001,
            message: "The user or administrator has not consented to use the application.",
            name: "consentWithdrawn"
        )
        /// `AADSTS700084`: a single-page app's refresh token reached its fixed lifetime.
        public static let singlePageAppLifetime = RefreshRefusal(
            aadsts: 700_084,
            message: "The refresh token was issued to a single page app (SPA), and therefore has a fixed, limited "
                + "lifetime, which has been exceeded.",
            name: "singlePageAppLifetime"
        )

        /// Every refusal.
        public static let all: [RefreshRefusal] = [
            .inactivity, .expiredGrant, .passwordChanged, .multiFactorRequired, .multiFactorRegistrationRequired,
            .consentWithdrawn, .singlePageAppLifetime,
        ]

        /// The refusal's name (`inactivity`, `passwordChanged`, …).
        public var description: String { self.name }
    }
}

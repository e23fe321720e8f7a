import Foundation
import Tether
package import TetherOAuth

/// The claim checks of OpenID Connect Core §3.1.3.7, apart from the signature, shared by every verifier.
package enum ClaimValidation {
    /// Checks claims against expectations and returns them in the public shape.
    ///
    /// Order: required claims, then ``TetherOAuth/IDTokenClaims/check(against:notBefore:rules:)``.
    /// - Parameters:
    ///   - claims: The decoded claims.
    ///   - expectations: What the token must say.
    ///   - rules: Extra rules.
    /// - Returns: The verified claims.
    /// - Throws: ``TetherOAuth/IDTokenError`` with code `malformed` (a required claim is absent), `wrongIssuer`,
    ///   `wrongAudience`, `wrongAuthorizedParty`, `expired`, `notYetValid`, `tooOld`, `missingNonce` or
    ///   `nonceMismatch`.
    package static func validate(
        _ claims: JWTClaimSet,
        against expectations: IDTokenExpectations,
        rules: ExtraClaimRules = []
    ) throws(IDTokenError) -> IDTokenClaims {
        guard let issuer = claims.issuer else { throw missing("iss") }
        guard let subject = claims.subject else { throw missing("sub") }
        guard let audience = claims.audience else { throw missing("aud") }
        guard let expiresAt = claims.expiresAt else { throw missing("exp") }
        guard let issuedAt = claims.issuedAt else { throw missing("iat") }

        let verified = IDTokenClaims(
            issuer: issuer,
            subject: subject,
            audience: audience,
            expiresAt: expiresAt,
            issuedAt: issuedAt,
            nonce: claims.nonce,
            authorizedParty: claims.authorizedParty,
            authTime: claims.authTime,
            email: claims.email,
            emailVerified: claims.emailVerified,
            name: claims.name,
            preferredUsername: claims.preferredUsername,
            tenantID: claims.tenantID
        )
        try verified.check(against: expectations, notBefore: claims.notBefore, rules: rules)
        return verified
    }

    private static func missing(_ claim: String) -> IDTokenError {
        IDTokenError.malformed.with(message: "The ID token lacks the required `\(claim)` claim")
    }
}

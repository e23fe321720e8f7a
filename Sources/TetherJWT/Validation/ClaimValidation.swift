import Foundation
import Tether
package import TetherOAuth

/// The claim checks of OpenID Connect Core §3.1.3.7, apart from the signature, shared by every verifier.
package enum ClaimValidation {
    /// The placeholder of Microsoft's multi-tenant issuer template.
    static let tenantPlaceholder = "{tenantid}"

    /// Checks claims against expectations and returns them in the public shape.
    ///
    /// Order: required claims, `iss`, `aud`, `azp`, `exp`, `iat`/`nbf`, age, extra rules, `nonce`.
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

        guard issuerMatches(issuer, tenantID: claims.tenantID, expectations: expectations) else {
            throw IDTokenError.wrongIssuer
        }
        guard audience.contains(where: { exactlyEqual($0, expectations.audience) }) else {
            throw IDTokenError.wrongAudience
        }
        // OIDC Core errata 2: when `azp` is present it must be our client id, however many audiences there are.
        if let authorizedParty = claims.authorizedParty, !exactlyEqual(authorizedParty, expectations.audience) {
            throw IDTokenError.wrongAuthorizedParty
        }

        let now = expectations.now.timeIntervalSince1970
        let skew = expectations.clockSkew.timeInterval
        guard expiresAt.timeIntervalSince1970 > now - skew else { throw IDTokenError.expired }
        guard issuedAt.timeIntervalSince1970 <= now + skew else {
            throw IDTokenError.notYetValid.with(message: "The ID token's issue time is in the future")
        }
        if let notBefore = claims.notBefore, notBefore.timeIntervalSince1970 > now + skew {
            throw IDTokenError.notYetValid
        }
        if let maximumAge = expectations.maximumAge,
            now - issuedAt.timeIntervalSince1970 > maximumAge.timeInterval + skew
        {
            throw IDTokenError.tooOld
        }

        if rules.contains(.nonEmptySubject), subject.isEmpty {
            throw IDTokenError.malformed.with(message: "The ID token's subject is empty")
        }
        if rules.contains(.authTimeInPast) {
            guard let authTime = claims.authTime else { throw missing("auth_time") }
            guard authTime.timeIntervalSince1970 <= now + skew else {
                throw IDTokenError.notYetValid.with(message: "The ID token's authentication time is in the future")
            }
        }

        if let expectedNonce = expectations.nonce {
            guard let nonce = claims.nonce else { throw IDTokenError.missingNonce }
            guard constantTimeEqual(nonce, expectedNonce) else { throw IDTokenError.nonceMismatch }
        }

        return IDTokenClaims(
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
    }

    /// Whether `iss` is the expected issuer or an alternative, with `{tenantid}` templates filled from `tid`.
    /// - Parameters:
    ///   - issuer: The token's `iss`.
    ///   - tenantID: The token's `tid`, if any.
    ///   - expectations: The expected issuers.
    /// - Returns: `true` on an exact (byte-wise) match.
    package static func issuerMatches(_ issuer: String, tenantID: String?, expectations: IDTokenExpectations) -> Bool {
        for candidate in [expectations.issuer] + expectations.alternativeIssuers {
            if candidate.contains(tenantPlaceholder) {
                // A tenant id is a GUID; refuse anything that could change the template's structure.
                guard let tenantID, !tenantID.isEmpty, !tenantID.contains("/"), !tenantID.contains("{") else {
                    continue
                }
                if exactlyEqual(issuer, candidate.replacingOccurrences(of: tenantPlaceholder, with: tenantID)) {
                    return true
                }
            } else if exactlyEqual(issuer, candidate) {
                return true
            }
        }
        return false
    }

    /// Byte-wise equality: `String ==` would also match canonically equivalent Unicode spellings.
    static func exactlyEqual(_ lhs: String, _ rhs: String) -> Bool { lhs.utf8.elementsEqual(rhs.utf8) }

    /// Equality whose running time does not depend on where the strings first differ.
    /// - Parameters:
    ///   - lhs: A string.
    ///   - rhs: Another string.
    /// - Returns: Whether their UTF-8 bytes are equal.
    package static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8)
        let right = Array(rhs.utf8)
        var difference = UInt8(truncatingIfNeeded: left.count ^ right.count)
        if left.count != right.count { difference |= 1 }
        for index in 0..<max(left.count, right.count) {
            let a = index < left.count ? left[index] : 0
            let b = index < right.count ? right[index] : 0
            difference |= a ^ b
        }
        return difference == 0
    }

    private static func missing(_ claim: String) -> IDTokenError {
        IDTokenError.malformed.with(message: "The ID token lacks the required `\(claim)` claim")
    }
}

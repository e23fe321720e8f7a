public import Foundation
public import Tether

extension IDTokenClaims {
    /// Decodes the claims of a compact JWT without checking its signature.
    ///
    /// Use it only for an ID token received straight from the token endpoint over TLS (OIDC Core §3.1.3.7,
    /// step 6), followed by ``check(against:)``; anything else needs an ``IDTokenValidating`` that verifies the
    /// signature.
    /// - Parameter idToken: The compact JWT.
    /// - Returns: The claims.
    /// - Throws: ``IDTokenError/malformed`` (not three parts, bad base64url, not JSON, no signature, missing `iss`,
    ///   `sub`, `aud`, `exp` or `iat`); ``IDTokenError/unsupportedAlgorithm`` for `alg: none`.
    public static func decodeUnverified(_ idToken: IDToken) throws -> IDTokenClaims {
        let parts = idToken.revealedValue.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = Base64URL.decode(parts[0]), let payload = Base64URL.decode(parts[1]),
            let headerObject = JSONValue.object(from: header)
        else {
            throw IDTokenError.malformed.with(message: "The ID token is not a compact JWS with a JSON header")
        }
        // Every accepted algorithm signs (RFC 7515 §7.1): a token without a signature is an unsigned one in
        // disguise, whatever its `alg` says.
        guard !parts[2].isEmpty, Base64URL.decode(parts[2])?.isEmpty == false else {
            throw IDTokenError.malformed.with(message: "The ID token has no signature")
        }
        guard let alg = headerObject["alg"]?.string, alg.lowercased() != "none", !alg.hasPrefix("HS") else {
            throw IDTokenError.unsupportedAlgorithm.with(message: "The ID token's alg is missing, none or a MAC")
        }
        return try decodePayload(payload)
    }

    /// Decodes a JWT claims set (the JSON payload).
    /// - Parameter payload: The JSON bytes.
    /// - Returns: The claims.
    /// - Throws: ``IDTokenError/malformed`` when required claims are missing or mistyped.
    public static func decodePayload(_ payload: Data) throws -> IDTokenClaims {
        guard let object = JSONValue.object(from: payload) else {
            throw IDTokenError.malformed.with(message: "The ID token's claims are not a JSON object")
        }
        let audience: [String]
        switch object["aud"] {
        case .string(let value)?: audience = [value]
        case .array(let values)?: audience = values.compactMap(\.string)
        default: audience = []
        }
        guard let issuer = object["iss"]?.string, let subject = object["sub"]?.string, !subject.isEmpty,
            !audience.isEmpty, let exp = object["exp"]?.number, let iat = object["iat"]?.number, exp.isFinite,
            iat.isFinite
        else {
            throw IDTokenError.malformed.with(message: "The ID token lacks one of iss, sub, aud, exp, iat")
        }
        return IDTokenClaims(
            issuer: issuer,
            subject: subject,
            audience: audience,
            expiresAt: Date(timeIntervalSince1970: exp),
            issuedAt: Date(timeIntervalSince1970: iat),
            nonce: object["nonce"]?.string,
            authorizedParty: object["azp"]?.string,
            authTime: object["auth_time"]?.number.flatMap { $0.isFinite ? Date(timeIntervalSince1970: $0) : nil },
            email: object["email"]?.string,
            emailVerified: object["email_verified"]?.bool,
            name: object["name"]?.string,
            preferredUsername: object["preferred_username"]?.string,
            tenantID: object["tid"]?.string
        )
    }

    /// Checks the claims against expectations (OIDC Core §3.1.3.7 steps 2–5 and 9–11): the one implementation
    /// every verifier shares.
    ///
    /// Order: `iss`, `aud`, `azp`, `exp`, `iat`/`nbf`, age, extra rules, `nonce`. Identifiers are compared byte
    /// for byte (`String ==` would match canonically equivalent Unicode spellings); the nonce in constant time.
    /// - Parameters:
    ///   - expectations: Issuer, audience, nonce, time and skew.
    ///   - notBefore: The token's `nbf`, if any.
    ///   - rules: Checks some issuers add (``ExtraClaimRules/firebase``).
    /// - Throws: ``IDTokenError`` — `wrongIssuer`, `wrongAudience`, `wrongAuthorizedParty`, `expired`,
    ///   `notYetValid`, `tooOld`, `malformed` (an extra rule's claim is absent), `missingNonce`, `nonceMismatch`.
    public func check(
        against expectations: IDTokenExpectations,
        notBefore: Date? = nil,
        rules: ExtraClaimRules = []
    ) throws(IDTokenError) {
        guard Self.issuerMatches(issuer, tenantID: tenantID, expectations: expectations) else {
            throw IDTokenError.wrongIssuer.with(
                message: "The ID token's issuer '\(UntrustedText.sanitized(issuer))' is not '\(expectations.issuer)'"
            )
        }
        let audiences = [expectations.audience] + expectations.alternativeAudiences
        guard audience.contains(where: { claimed in audiences.contains { Self.exactlyEqual(claimed, $0) } }) else {
            throw IDTokenError.wrongAudience.with(message: "The ID token's audience does not include the client id")
        }
        // OIDC Core errata 2: when `azp` is present it must be our client id, however many audiences there are —
        // or one of the parties the expectations name explicitly.
        if let authorizedParty,
            !(audiences + expectations.authorizedParties).contains(where: { Self.exactlyEqual(authorizedParty, $0) })
        {
            throw IDTokenError.wrongAuthorizedParty
        }
        let now = expectations.now.timeIntervalSince1970
        let skew = expectations.clockSkew.timeInterval
        guard expiresAt.timeIntervalSince1970 > now - skew else { throw IDTokenError.expired }
        guard issuedAt.timeIntervalSince1970 <= now + skew else {
            throw IDTokenError.notYetValid.with(message: "The ID token's issue time is in the future")
        }
        if let notBefore, notBefore.timeIntervalSince1970 > now + skew { throw IDTokenError.notYetValid }
        if let maximumAge = expectations.maximumAge,
            now - issuedAt.timeIntervalSince1970 > maximumAge.timeInterval + skew
        {
            throw IDTokenError.tooOld
        }
        if rules.contains(.nonEmptySubject), subject.isEmpty {
            throw IDTokenError.malformed.with(message: "The ID token's subject is empty")
        }
        if rules.contains(.authTimeInPast) {
            guard let authTime else {
                throw IDTokenError.malformed.with(message: "The ID token lacks the required `auth_time` claim")
            }
            guard authTime.timeIntervalSince1970 <= now + skew else {
                throw IDTokenError.notYetValid.with(message: "The ID token's authentication time is in the future")
            }
        }
        if let expected = expectations.nonce {
            guard let nonce else { throw IDTokenError.missingNonce }
            guard Self.constantTimeEqual(nonce, expected) else { throw IDTokenError.nonceMismatch }
        }
    }

    /// Whether `iss` is the expected issuer or an alternative, with `{tenantid}` templates filled from `tid`.
    private static func issuerMatches(_ issuer: String, tenantID: String?, expectations: IDTokenExpectations) -> Bool {
        let placeholder = "{tenantid}"
        for candidate in [expectations.issuer] + expectations.alternativeIssuers {
            if candidate.contains(placeholder) {
                // A tenant id is a GUID; refuse anything that could change the template's structure.
                guard let tenantID, !tenantID.isEmpty, !tenantID.contains("/"), !tenantID.contains("{") else {
                    continue
                }
                if exactlyEqual(issuer, candidate.replacingOccurrences(of: placeholder, with: tenantID)) {
                    return true
                }
            } else if exactlyEqual(issuer, candidate) {
                return true
            }
        }
        return false
    }

    /// Byte-wise equality.
    private static func exactlyEqual(_ lhs: String, _ rhs: String) -> Bool { lhs.utf8.elementsEqual(rhs.utf8) }

    /// Equality whose running time does not depend on where the strings first differ.
    package static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8)
        let right = Array(rhs.utf8)
        var difference: UInt8 = left.count == right.count ? 0 : 1
        for index in 0..<max(left.count, right.count) {
            let a = index < left.count ? left[index] : 0
            let b = index < right.count ? right[index] : 0
            difference |= a ^ b
        }
        return difference == 0
    }
}

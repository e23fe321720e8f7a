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
    /// - Throws: ``IDTokenError/malformed`` (not three parts, bad base64url, not JSON, missing `iss`, `sub`, `aud`,
    ///   `exp` or `iat`); ``IDTokenError/unsupportedAlgorithm`` for `alg: none`.
    public static func decodeUnverified(_ idToken: IDToken) throws -> IDTokenClaims {
        let parts = idToken.revealedValue.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = base64URLDecode(parts[0]), let payload = base64URLDecode(parts[1]),
            let headerObject = JSONValue.object(from: header)
        else {
            throw IDTokenError.malformed.with(message: "The ID token is not a compact JWS with a JSON header")
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
            !audience.isEmpty, let exp = object["exp"]?.number, let iat = object["iat"]?.number
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
            authTime: object["auth_time"]?.number.map { Date(timeIntervalSince1970: $0) },
            email: object["email"]?.string,
            emailVerified: object["email_verified"]?.bool,
            name: object["name"]?.string,
            preferredUsername: object["preferred_username"]?.string,
            tenantID: object["tid"]?.string
        )
    }

    /// Checks the claims against expectations (OIDC Core §3.1.3.7 steps 2–5 and 9–11).
    /// - Parameter expectations: Issuer, audience, nonce, time and skew.
    /// - Throws: ``IDTokenError`` — `wrongIssuer`, `wrongAudience`, `wrongAuthorizedParty`, `expired`,
    ///   `notYetValid`, `tooOld`, `missingNonce`, `nonceMismatch`.
    public func check(against expectations: IDTokenExpectations) throws {
        let accepted = ([expectations.issuer] + expectations.alternativeIssuers).map { candidate in
            tenantID.map { candidate.replacingOccurrences(of: "{tenantid}", with: $0) } ?? candidate
        }
        guard accepted.contains(issuer) else {
            throw IDTokenError.wrongIssuer.with(
                message: "The ID token's issuer '\(issuer)' is not '\(expectations.issuer)'"
            )
        }
        guard audience.contains(expectations.audience) else {
            throw IDTokenError.wrongAudience.with(message: "The ID token's audience does not include the client id")
        }
        if let authorizedParty, authorizedParty != expectations.audience {
            throw IDTokenError.wrongAuthorizedParty.with(message: "The ID token's azp is not the client id")
        }
        let skew = expectations.clockSkew.timeIntervalValue
        guard expiresAt.timeIntervalSince(expectations.now) > -skew else { throw IDTokenError.expired }
        guard issuedAt.timeIntervalSince(expectations.now) <= skew else { throw IDTokenError.notYetValid }
        if let maximumAge = expectations.maximumAge,
            expectations.now.timeIntervalSince(issuedAt) > maximumAge.timeIntervalValue + skew
        {
            throw IDTokenError.tooOld
        }
        if let expected = expectations.nonce {
            guard let nonce else { throw IDTokenError.missingNonce }
            guard PKCE.constantTimeEquals(nonce, expected) else { throw IDTokenError.nonceMismatch }
        }
    }

    static func base64URLDecode(_ part: Substring) -> Data? {
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !text.contains("=") else { return nil }
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        return Data(base64Encoded: text)
    }
}

extension Duration {
    var timeIntervalValue: TimeInterval {
        TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
    }
}

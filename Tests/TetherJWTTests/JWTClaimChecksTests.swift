import Foundation
import JWTTestSupport
import Testing
import Tether
import TetherJWT
import TetherOAuth

/// The claim checks of OIDC Core §3.1.3.7, run through the validator with properly signed tokens.
struct JWTClaimChecksTests {
    private func validate(
        _ overrides: [String: (any Sendable)?],
        _ expectations: IDTokenExpectations = expectations(),
        extraRules: ExtraClaimRules = []
    ) async throws -> IDTokenClaims {
        let key = try await TestKey.rsa()
        let validator = makeValidator(transport: .serving(KeyDocument(jwks(key))), extraRules: extraRules)
        return try await validator.validate(try await key.sign(claims(overrides)), expecting: expectations)
    }

    @Test func rejectsAnotherIssuer() async throws {
        await #expect(throws: IDTokenError.wrongIssuer) { try await validate(["iss": "https://evil.test"]) }
        // Exact comparison: no trailing slash, no case folding.
        await #expect(throws: IDTokenError.wrongIssuer) { try await validate(["iss": "https://issuer.test/"]) }
        await #expect(throws: IDTokenError.wrongIssuer) { try await validate(["iss": "https://ISSUER.test"]) }
    }

    @Test func anotherIssuerIsNamedWithoutControlCharacters() async throws {
        // Long, but within the 64 KiB a token may have once encoded.
        let hostile = "\u{1B}[2Jhttps://evil.test\nforged\u{202E}" + String(repeating: "x", count: 40_000)
        let error = await #expect(throws: IDTokenError.wrongIssuer) { try await validate(["iss": hostile]) }
        #expect(error?.message.hasPrefix("The ID token's issuer '[2Jhttps://evil.test forgedxxx") == true)
        #expect(error?.message.hasSuffix("…' is not 'https://issuer.test'") == true)
    }

    @Test func acceptsGooglesLegacyIssuerThroughAlternativeIssuers() async throws {
        let google = expectations(issuer: "https://accounts.google.com", alternativeIssuers: ["accounts.google.com"])
        let result = try await validate(["iss": "accounts.google.com"], google)
        #expect(result.issuer == "accounts.google.com")
        _ = try await validate(["iss": "https://accounts.google.com"], google)
        await #expect(throws: IDTokenError.wrongIssuer) {
            try await validate(["iss": "accounts.google.com"], expectations(issuer: "https://accounts.google.com"))
        }
    }

    @Test func matchesMicrosoftsTenantTemplateWithTheTokensTid() async throws {
        let tenant = "9188040d-6c67-4c5b-b112-36a304b66dad"
        let microsoft = expectations(issuer: "https://login.microsoftonline.com/{tenantid}/v2.0")
        let result = try await validate(
            ["iss": "https://login.microsoftonline.com/\(tenant)/v2.0", "tid": tenant],
            microsoft
        )
        #expect(result.tenantID == tenant)
        // The issuer names another tenant than `tid`.
        await #expect(throws: IDTokenError.wrongIssuer) {
            try await validate(["iss": "https://login.microsoftonline.com/other/v2.0", "tid": tenant], microsoft)
        }
        // No `tid`: the template cannot be filled.
        await #expect(throws: IDTokenError.wrongIssuer) {
            try await validate(["iss": "https://login.microsoftonline.com/\(tenant)/v2.0"], microsoft)
        }
        // The literal template is not an issuer.
        await #expect(throws: IDTokenError.wrongIssuer) {
            try await validate(["iss": "https://login.microsoftonline.com/{tenantid}/v2.0"], microsoft)
        }
    }

    @Test func rejectsAnotherAudience() async throws {
        await #expect(throws: IDTokenError.wrongAudience) { try await validate(["aud": "client-2"]) }
        await #expect(throws: IDTokenError.wrongAudience) { try await validate(["aud": ["client-2", "client-3"]]) }
    }

    @Test func acceptsAnAudienceArrayContainingTheClient() async throws {
        let result = try await validate(["aud": ["other", testClientID], "azp": testClientID])
        #expect(result.audience == ["other", testClientID])
        #expect(result.authorizedParty == testClientID)
    }

    @Test func rejectsAnotherAuthorizedParty() async throws {
        await #expect(throws: IDTokenError.wrongAuthorizedParty) { try await validate(["azp": "client-2"]) }
        await #expect(throws: IDTokenError.wrongAuthorizedParty) {
            try await validate(["aud": [testClientID, "client-2"], "azp": "client-2"])
        }
    }

    @Test func rejectsAnExpiredToken() async throws {
        let exp = fixedNow.timeIntervalSince1970 - 301
        await #expect(throws: IDTokenError.expired) { try await validate(["exp": exp]) }
    }

    @Test func acceptsATokenExpiredWithinTheSkew() async throws {
        _ = try await validate(["exp": fixedNow.timeIntervalSince1970 - 299])
        // Exactly at the skew boundary it is expired.
        await #expect(throws: IDTokenError.expired) {
            try await validate(["exp": fixedNow.timeIntervalSince1970 - 300])
        }
    }

    @Test func rejectsATokenIssuedInTheFuture() async throws {
        await #expect(throws: IDTokenError.notYetValid) {
            try await validate(["iat": fixedNow.timeIntervalSince1970 + 301])
        }
        _ = try await validate(["iat": fixedNow.timeIntervalSince1970 + 300])
    }

    @Test func rejectsATokenNotValidBeforeALaterTime() async throws {
        await #expect(throws: IDTokenError.notYetValid) {
            try await validate(["nbf": fixedNow.timeIntervalSince1970 + 600])
        }
        _ = try await validate(["nbf": fixedNow.timeIntervalSince1970 + 60])
    }

    @Test func rejectsATokenOlderThanTheMaximumAge() async throws {
        let strict = expectations(maximumAge: .seconds(600))
        await #expect(throws: IDTokenError.tooOld) {
            try await validate(
                ["iat": fixedNow.timeIntervalSince1970 - 901, "exp": fixedNow.timeIntervalSince1970 + 60],
                strict
            )
        }
        _ = try await validate(["iat": fixedNow.timeIntervalSince1970 - 899], strict)
    }

    @Test func checksTheNonce() async throws {
        await #expect(throws: IDTokenError.missingNonce) { try await validate(["nonce": nil]) }
        await #expect(throws: IDTokenError.nonceMismatch) { try await validate(["nonce": "nonce-2"]) }
        await #expect(throws: IDTokenError.nonceMismatch) { try await validate(["nonce": "nonce-10"]) }
        let result = try await validate([:])
        #expect(result.nonce == "nonce-1")
        // No nonce expected: any or none is fine.
        _ = try await validate(["nonce": nil], expectations(nonce: nil))
    }

    @Test(arguments: [("true", true), ("false", false)])
    func readsApplesStringEmailVerified(text: String, value: Bool) async throws {
        let result = try await validate(["email_verified": text, "is_private_email": "true"])
        #expect(result.emailVerified == value)
    }

    @Test func readsOptionalProfileClaims() async throws {
        let result = try await validate([
            "name": "Ada", "preferred_username": "ada@example.test", "auth_time": fixedNow.timeIntervalSince1970 - 120,
            "email_verified": nil,
        ])
        #expect(result.name == "Ada")
        #expect(result.preferredUsername == "ada@example.test")
        #expect(result.authTime == fixedNow.addingTimeInterval(-120))
        #expect(result.emailVerified == nil)
    }

    @Test func firebaseRulesRequireASubjectAndAPastAuthTime() async throws {
        let authTime = fixedNow.timeIntervalSince1970 - 120
        _ = try await validate(["auth_time": authTime], extraRules: .firebase)
        await #expect(throws: IDTokenError.malformed) {
            try await validate(["sub": "", "auth_time": authTime], extraRules: .firebase)
        }
        await #expect(throws: IDTokenError.malformed) { try await validate([:], extraRules: .firebase) }
        await #expect(throws: IDTokenError.notYetValid) {
            try await validate(["auth_time": fixedNow.timeIntervalSince1970 + 3600], extraRules: .firebase)
        }
        // Without the rules an empty subject passes.
        _ = try await validate(["sub": ""])
    }

    @Test func constantTimeComparison() {
        #expect(IDTokenClaims.constantTimeEqual("abc", "abc"))
        #expect(!IDTokenClaims.constantTimeEqual("abc", "abd"))
        #expect(!IDTokenClaims.constantTimeEqual("abc", "abcd"))
        #expect(!IDTokenClaims.constantTimeEqual("", "a"))
        #expect(IDTokenClaims.constantTimeEqual("", ""))
        // Canonically equivalent but different bytes: not equal.
        #expect(!IDTokenClaims.constantTimeEqual("\u{E9}", "e\u{301}"))
    }
}

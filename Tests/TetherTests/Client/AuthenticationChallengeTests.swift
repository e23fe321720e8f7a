import Testing
import Tether

struct AuthenticationChallengeTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let header: String
        let expected: [AuthenticationChallenge]
        var testDescription: String { header }
    }

    static let cases: [Case] = [
        Case(header: "Bearer", expected: [AuthenticationChallenge(scheme: "Bearer", parameters: [:])]),
        Case(
            header: #"Bearer realm="example""#,
            expected: [AuthenticationChallenge(scheme: "Bearer", parameters: ["realm": "example"])]
        ),
        Case(
            header: #"Bearer realm="tether-dev", error="invalid_token", error_description="The access token expired""#,
            expected: [
                AuthenticationChallenge(
                    scheme: "Bearer",
                    parameters: [
                        "realm": "tether-dev", "error": "invalid_token",
                        "error_description": "The access token expired",
                    ]
                )
            ]
        ),
        Case(
            header: #"Basic realm="a, b", Bearer error="insufficient_scope", scope="admin read""#,
            expected: [
                AuthenticationChallenge(scheme: "Basic", parameters: ["realm": "a, b"]),
                AuthenticationChallenge(
                    scheme: "Bearer",
                    parameters: ["error": "insufficient_scope", "scope": "admin read"]
                ),
            ]
        ),
        Case(
            header: #"Bearer error_description="say \"hi\", \\ then go""#,
            expected: [
                AuthenticationChallenge(scheme: "Bearer", parameters: ["error_description": #"say "hi", \ then go"#])
            ]
        ),
        Case(
            header: "Bearer ERROR=invalid_token,Realm=api",
            expected: [
                AuthenticationChallenge(scheme: "Bearer", parameters: ["error": "invalid_token", "realm": "api"])
            ]
        ),
        Case(
            header: "Negotiate abc123==, DPoP algs=\"ES256\"",
            expected: [
                AuthenticationChallenge(scheme: "Negotiate", parameters: [:]),
                AuthenticationChallenge(scheme: "DPoP", parameters: ["algs": "ES256"]),
            ]
        ),
        Case(header: "", expected: []),
    ]

    @Test(arguments: cases) func parses(_ testCase: Case) {
        let parsed = AuthenticationChallenge.parse(testCase.header)
        if testCase.header.hasPrefix("Negotiate") {
            #expect(parsed.map(\.scheme) == testCase.expected.map(\.scheme))
            #expect(parsed.last == testCase.expected.last)
        } else {
            #expect(parsed == testCase.expected)
        }
    }

    @Test(arguments: [
        "\"", "=", ",,,,", "Bearer realm=\"unterminated", "Bearer realm=", "Bearer ==== ,= \"x", "\\", "Bearer a=\"\\",
        "   ", "Bearer error=\"a\"\"b\"", "\u{0}\u{1F600} x=y",
    ])
    func malformedInputNeverCrashes(_ header: String) {
        let parsed = AuthenticationChallenge.parse(header)
        #expect(parsed.count <= header.count)
    }

    @Test func anUnterminatedQuotedStringEndsAtTheEndOfInput() {
        let parsed = AuthenticationChallenge.parse(#"Bearer error="invalid_token"#)
        #expect(parsed.first?.error == "invalid_token")
    }

    @Test func convenienceAccessorsReadTheRFC6750Parameters() {
        let challenge = AuthenticationChallenge.parse(
            #"Bearer error="insufficient_scope", error_description="needs admin", scope="admin""#
        )[0]
        #expect(challenge.error == "insufficient_scope")
        #expect(challenge.errorDescription == "needs admin")
        #expect(challenge.scope == "admin")
    }
}

/// Which `401` challenges read as a refused token, and the claims of a claims challenge.
struct RefusedTokenChallengeTests {
    @Test(arguments: [
        // Google APIs (RFC 6750 §3.1).
        #"Bearer realm="https://accounts.google.com/", error="invalid_token""#,
        // Microsoft Graph: no error attribute.
        #"Bearer realm="", authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize", client_id="00000003-0000-0000-c000-000000000000""#,
        #"Bearer error="insufficient_claims", claims="e30=""#,
        #"Bearer error="something_new""#,
        "Bearer",
    ])
    func challengesThatRefuseTheToken(_ header: String) throws {
        let challenge = try #require(AuthenticationChallenge.parse(header).first)
        #expect(challenge.refusesToken)
    }

    @Test(arguments: [
        #"Bearer error="invalid_request""#,
        #"Bearer error="insufficient_scope", scope="admin""#,
    ])
    func challengesNamingAnotherCause(_ header: String) throws {
        let challenge = try #require(AuthenticationChallenge.parse(header).first)
        #expect(!challenge.refusesToken)
    }

    @Test func claimsAreDecodedFromBase64WithPaddingOrBase64URL() throws {
        // Microsoft's example (https://learn.microsoft.com/entra/identity-platform/claims-challenge).
        let padded =
            #"Bearer realm="", error="insufficient_claims", "#
            + #"claims="eyJhY2Nlc3NfdG9rZW4iOnsiYWNycyI6eyJlc3NlbnRpYWwiOnRydWUsInZhbHVlIjoiY3AxIn19fQ==""#
        let challenge = try #require(AuthenticationChallenge.parse(padded).first)
        #expect(challenge.claims == #"{"access_token":{"acrs":{"essential":true,"value":"cp1"}}}"#)
        let unpadded = try #require(
            AuthenticationChallenge.parse(
                #"Bearer error="insufficient_claims", claims="eyJhY2Nlc3NfdG9rZW4iOnt9fQ""#
            ).first
        )
        #expect(unpadded.claims == #"{"access_token":{}}"#)
    }

    @Test(arguments: ["not base64!", "bm90IGpzb24", "WzFd", ""])
    func claimsThatAreNotABase64JSONObjectAreIgnored(_ value: String) throws {
        let challenge = try #require(
            AuthenticationChallenge.parse(#"Bearer error="insufficient_claims", claims="\#(value)""#).first
        )
        #expect(challenge.claims == nil)
    }
}

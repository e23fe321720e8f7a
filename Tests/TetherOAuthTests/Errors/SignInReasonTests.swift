import Foundation
import Testing
import Tether

@testable import TetherOAuth

/// The reasons a refused refresh gives, in plain words, from the bodies providers send (Microsoft Entra's
/// `AADSTS` codes, https://learn.microsoft.com/entra/identity-platform/reference-error-codes; Google's
/// "Token has been expired or revoked.", https://developers.google.com/identity/protocols/oauth2#expiration;
/// RFC 6749 §5.2 for everyone else).
struct SignInReasonTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let body: String
        let reason: SignInReason
        let words: [String]
        var testDescription: String { words.joined(separator: ", ") }
    }

    static func microsoft(_ number: Int, error: String = "invalid_grant", inCodes: Bool = true) -> String {
        let codes = inCodes ? #","error_codes":[\#(number)]"# : ""
        return #"{"error":"\#(error)","error_description":"AADSTS\#(number): Some text.\r\nTrace ID: t"\#(codes)}"#
    }

    static let cases: [Case] = [
        Case(body: microsoft(700_082), reason: .grantRevoked, words: ["not used for too long", "AADSTS700082"]),
        Case(body: microsoft(70008), reason: .grantRevoked, words: ["not used for too long", "AADSTS70008"]),
        Case(body: microsoft(50173), reason: .grantRevoked, words: ["password", "changed or reset"]),
        Case(body: microsoft(50173, inCodes: false), reason: .grantRevoked, words: ["password", "AADSTS50173"]),
        Case(body: microsoft(50076), reason: .interactionRequired, words: ["multi-factor", "AADSTS50076"]),
        Case(
            body: microsoft(50076, error: "interaction_required"),
            reason: .interactionRequired,
            words: ["multi-factor"]
        ),
        Case(body: microsoft(50079), reason: .interactionRequired, words: ["multi-factor", "AADSTS50079"]),
        Case(body: microsoft(65001), reason: .interactionRequired, words: ["consent", "withdrawn"]),
        Case(
            body: microsoft(65001, error: "consent_required"),
            reason: .interactionRequired,
            words: ["consent", "AADSTS65001"]
        ),
        Case(body: microsoft(700_084), reason: .grantRevoked, words: ["single-page app", "fixed lifetime"]),
        Case(
            body: #"{"error":"invalid_grant","error_description":"Token has been expired or revoked."}"#,
            reason: .grantRevoked,
            words: ["Google", "expired or was revoked", "seven days", "Testing"]
        ),
        Case(
            body: #"{"error":"invalid_grant","error_subtype":"invalid_rapt","#
                + #""error_description":"reauth related error"}"#,
            reason: .interactionRequired,
            words: ["Google", "confirm their identity"]
        ),
        Case(
            body: #"{"error":"invalid_grant","error_description":"The refresh token has been revoked."}"#,
            reason: .grantRevoked,
            words: ["no longer accepts", "(invalid_grant)", "sign in again"]
        ),
        Case(
            body: #"{"error":"interaction_required"}"#,
            reason: .interactionRequired,
            words: ["(interaction_required)", "sign in again"]
        ),
    ]

    @Test(arguments: cases)
    func theReasonSaysWhatHappenedAndWhatToDo(_ testCase: Case) throws {
        let error = try TokenResponseTests.classify(400, testCase.body)
        guard case .permanent(let reason) = error.classification else {
            Issue.record("\(testCase.body) must end the grant, not \(error.classification)")
            return
        }
        #expect(reason == testCase.reason)
        for word in testCase.words {
            #expect(reason.message.contains(word), "\(reason.message)")
        }
        #expect(reason.message.contains("sign in again") || reason.message.contains("then sign in"))
        // The refresh error a session sees carries the same reason.
        #expect(error.refreshError.kind == .permanent(reason))
    }

    @Test func providerTextNeverReachesTheReasonUnsanitized() throws {
        let error = try TokenResponseTests.classify(
            400,
            #"{"error":"invalid_grant","error_subtype":"x\u001b[31m\u0007"}"#
        )
        guard case .permanent(let reason) = error.classification else {
            Issue.record("invalid_grant must end the grant")
            return
        }
        #expect(!reason.message.unicodeScalars.contains { $0.properties.generalCategory == .control })
    }
}

import Foundation
import ProviderTestSupport
import SignInTestSupport
import Testing
import Tether
import TetherDevProvider
import TetherOAuth
import TetherTestSupport
import TetherTesting

/// A refused refresh gives the session, its status and the error a reason in plain words, from what the provider
/// sent: Microsoft's `AADSTS` bodies, Google's "Token has been expired or revoked.", RFC 6749 `error` alone.
@Suite(.timeLimit(.minutes(3)))
struct SignInReasonEndToEndTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let dialect: DevProvider.Dialect
        let refusal: DevProvider.RefreshRefusal
        let reason: SignInReason
        let words: [String]
        var testDescription: String { "\(dialect) \(refusal)" }
    }

    static let cases: [Case] = [
        Case(dialect: .microsoft, refusal: .inactivity, reason: .grantRevoked, words: ["not used", "AADSTS700082"]),
        Case(dialect: .microsoft, refusal: .expiredGrant, reason: .grantRevoked, words: ["not used", "AADSTS70008"]),
        Case(
            dialect: .microsoft,
            refusal: .passwordChanged,
            reason: .grantRevoked,
            words: ["password is changed or reset", "AADSTS50173"]
        ),
        Case(
            dialect: .microsoft,
            refusal: .multiFactorRequired,
            reason: .interactionRequired,
            words: ["multi-factor authentication", "AADSTS50076"]
        ),
        Case(
            dialect: .microsoft,
            refusal: .multiFactorRegistrationRequired,
            reason: .interactionRequired,
            words: ["set up multi-factor authentication", "AADSTS50079"]
        ),
        Case(
            dialect: .microsoft,
            refusal: .consentWithdrawn,
            reason: .interactionRequired,
            words: ["consent", "AADSTS65001"]
        ),
        Case(
            dialect: .microsoft,
            refusal: .singlePageAppLifetime,
            reason: .grantRevoked,
            words: ["single-page app", "AADSTS700084"]
        ),
        Case(
            dialect: .google,
            refusal: .inactivity,
            reason: .grantRevoked,
            words: ["Google no longer accepts", "seven days", "Testing"]
        ),
        Case(dialect: .standard, refusal: .passwordChanged, reason: .grantRevoked, words: ["(invalid_grant)"]),
    ]

    @Test(arguments: cases)
    func aRefusedRefreshSaysWhyAndWhatToDo(_ testCase: Case) async throws {
        let harness = try await ProviderHarness.start { $0.dialect = testCase.dialect }
        defer { Task { await harness.stop() } }
        let session = try await AuthorizedClientEndToEndTests.signedIn(harness)
        await harness.running.admin.refuseNextRefreshes(with: testCase.refusal)

        do {
            _ = try await session.forceRefresh()
            Issue.record("the refresh must be refused")
        } catch let error as SessionError {
            #expect(error == .needsSignIn)
            let reason = try #require(error.signInReason)
            #expect(reason == testCase.reason)
            for word in testCase.words {
                #expect(reason.message.contains(word), "\(reason.message)")
            }
            #expect(reason.message.contains("sign in again"))
            #expect(error.message == reason.message)
        }
        guard case .needsSignIn(let reason, _) = await session.status else {
            Issue.record("the session must need sign-in, not \(await session.status)")
            return
        }
        for word in testCase.words {
            #expect(reason.message.contains(word), "\(reason.message)")
        }
    }
}

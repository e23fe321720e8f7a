import Foundation
import Testing
import Tether
import TetherOAuth

#if canImport(AuthenticationServices)
import AuthenticationServices
#else
import AuthenticationServicesShim
#endif

extension Presenting {
    /// `AuthenticationServicesCredentialStateReader` over a simulated `ASAuthorizationAppleIDProvider`.
    struct AuthenticationServicesCredentialStateReaderTests {
        private static let connection = Connection(
            id: "apple",
            account: Account(providerID: "apple", subject: "001234.abc"),
            tokens: TokenSet(
                accessToken: AccessToken("a"),
                refreshToken: RefreshToken("r"),
                receivedAt: Date(timeIntervalSince1970: 0),
                expiresAt: nil
            )
        )

        private static func reader(
            returning state: ASAuthorizationAppleIDProvider.CredentialState
        ) -> AuthenticationServicesCredentialStateReader {
            AuthenticationServicesCredentialStateReader { userID in
                #expect(userID == "001234.abc")
                return state
            }
        }

        @Test(arguments: [
            (ASAuthorizationAppleIDProvider.CredentialState.authorized, AppleCredentialState.authorized),
            (.revoked, .revoked),
            (.notFound, .notFound),
            (.transferred, .transferred),
        ])
        func knownStatesMapOneToOne(
            system: ASAuthorizationAppleIDProvider.CredentialState,
            expected: AppleCredentialState
        ) async throws {
            let state = try await Self.reader(returning: system)
                .credentialState(forUserID: "001234.abc", connection: Self.connection)
            #expect(state == expected)
        }

        @Test func anUnknownStateIsNotASignOut() async throws {
            // A state a newer system may report (Objective-C enumerations keep any raw value).
            let future = try #require(ASAuthorizationAppleIDProvider.CredentialState(rawValue: 42))
            await #expect(throws: AppleCredentialStateError.unrecognizedState) {
                _ = try await Self.reader(returning: future)
                    .credentialState(forUserID: "001234.abc", connection: Self.connection)
            }
            // The grant check cannot tell, so it throws, and a session keeps its tokens (see Session.restore).
            await #expect(throws: AppleCredentialStateError.unrecognizedState) {
                _ = try await AppleGrantCheck(reader: Self.reader(returning: future)).grantStatus(of: Self.connection)
            }
        }
    }
}

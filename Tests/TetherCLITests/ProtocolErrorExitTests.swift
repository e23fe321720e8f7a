import Testing
import TetherCommandSupport
import TetherOAuth

@testable import TetherCLI

/// A provider answer that breaks the protocol in one field is reported with the field named, as a setup problem
/// (exit 5), never as "try again when the provider can be reached" (exit 4).
struct ProtocolErrorExitTests {
    @Test(arguments: [
        (OAuthError.invalidExpiresIn, "expires_in"), (.invalidVerificationURI, "verification_uri"),
    ])
    func aMalformedFieldExitsFiveNamingIt(error: OAuthError, field: String) {
        let failure = CLIFailure.from(error, connection: "dev")
        #expect(failure.status == .configuration)
        #expect(failure.status.rawValue == 5)
        #expect(failure.description.contains(field))
    }
}

import Testing
import Tether
import TetherCommandSupport

@testable import TetherCLI

/// An API's error status exits as Tether's one failure classifier reads it: a status worth trying again later is
/// "unavailable" (exit 4), a refusal that would repeat is a failure (exit 1).
struct APIErrorExitTests {
    static func serverError(_ status: Int) -> AuthorizedClientError {
        AuthorizedClientError.server.with(
            message: "https://api.example.com/v1 answered HTTP \(status)",
            httpStatus: status
        )
    }

    @Test(arguments: [408, 429, 500, 501, 502, 503, 504])
    func aTransientStatusExitsFour(_ status: Int) {
        let failure = CLIFailure.from(Self.serverError(status))
        #expect(failure.status == .unavailable)
        #expect(failure.description.contains("Try again later"))
    }

    @Test(arguments: [400, 404, 409, 422])
    func aRefusalExitsOne(_ status: Int) {
        #expect(CLIFailure.from(Self.serverError(status)).status == .failure)
    }
}

import Testing
import Tether

/// An error type outside Tether's modules with a field of its own, built the way the documentation describes.
private struct ExampleError: TetherError {
    var details: TetherErrorDetails
    private(set) var status: Int?

    init(_ code: String, _ message: String, status: Int? = nil) {
        details = TetherErrorDetails(code, message)
        self.status = status
    }

    static let first = ExampleError("first", "The first thing failed")
    static let second = ExampleError("second", "The second thing failed")
}

private struct Underlying: Error {}

@Suite struct TetherErrorTests {
    @Test func errorsAreEqualWhenTheirCodesAreWhateverTheirMessagesAndCauses() {
        let detailed = CredentialStoreError.wrongKey.with(
            message: "Vault key 2 does not open record 7",
            cause: Underlying()
        )
        #expect(detailed == .wrongKey)
        #expect(detailed != .corrupted)
        #expect(ExampleError.first.with(message: "Other words") == .first)
        #expect(ExampleError.first != .second)
    }

    @Test func withKeepsTheCodeAndEverythingElseTheErrorCarries() {
        let error = ExampleError("first", "The first thing failed", status: 503)
            .with(message: "The first thing failed at step 3", cause: Underlying())
        #expect(error == .first)
        #expect(error.status == 503)
        #expect(error.message == "The first thing failed at step 3")
        #expect(error.cause is Underlying)

        // A nil cause keeps the one already attached.
        let again = error.with(message: "Still failing")
        #expect(again.cause is Underlying)
        #expect(again.message == "Still failing")
    }

    @Test func switchAndCatchMatchAnyErrorOnTheCode() throws {
        let thrown: any Error = SessionError.offline.with(message: "The provider could not be reached: timed out")
        switch thrown {
        case SessionError.needsSignIn: Issue.record("matched the wrong code")
        case SessionError.offline: break
        default: Issue.record("matched nothing")
        }
        #expect(!(CredentialStoreError.unavailable ~= thrown))
        #expect(TransportError.timedOut ~= TransportError.timedOut.with(message: "After 30 s"))
        #expect(!(TransportError.timedOut ~= Underlying()))

        do {
            throw ExampleError.second.with(message: "Second, in detail")
        } catch ExampleError.first {
            Issue.record("caught the wrong code")
        } catch ExampleError.second {
            // The right one.
        }
    }

    @Test func descriptionIsTheTypeAndTheMessage() {
        #expect("\(CredentialStoreError.io.with(message: "Disk full"))" == "CredentialStoreError: Disk full")
        #expect(String(describing: ExampleError.second) == "ExampleError: The second thing failed")
        #expect(SessionError.needsSignIn.description == "SessionError: The user must sign in again")
    }
}

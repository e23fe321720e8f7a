import Tether
import TetherCommandSupport
import TetherOAuth

/// What became of the revocation a sign-out attempted: `tether logout` must not claim the grant ended at the
/// provider when it did not.
actor RevocationRecorder {
    /// The outcome of the one revocation a sign-out makes.
    enum Outcome: Sendable {
        case revoked
        case notRevoked(reason: String)
    }

    private(set) var outcome: Outcome?

    func record(_ outcome: Outcome) { self.outcome = outcome }

    /// The sentence `tether logout` prints for the connection `name`.
    func summary(for name: String, forget: Bool) -> String {
        let forgotten = forget ? " and forgot its settings" : ""
        guard case .notRevoked(let reason) = outcome else { return "Signed out of '\(name)'\(forgotten)." }
        return "Signed out of '\(name)' here\(forgotten): its tokens were deleted, but not revoked at the provider "
            + "(\(reason)); they stay valid there until they expire."
    }

    /// A reason in plain words, without secrets: error messages never contain any.
    static func reason(_ error: any Error, connection: String) -> String {
        if let error = error as? ProviderConfigurationError, error == .missingEndpoint {
            return "it has no revocation endpoint; give one with `tether login \(connection) --revocation-endpoint URL`"
        }
        return (error as? any TetherError)?.message ?? "\(type(of: error))"
    }
}

/// Revokes through `base` and records the outcome.
struct RecordingRevoker: TokenRevoker {
    let base: any TokenRevoker
    let recorder: RevocationRecorder
    let connection: String

    func revoke(_ tokens: TokenSet, account: Account) async throws {
        do {
            try await base.revoke(tokens, account: account)
            await recorder.record(.revoked)
        } catch {
            await recorder.record(.notRevoked(reason: RevocationRecorder.reason(error, connection: connection)))
            throw error
        }
    }
}

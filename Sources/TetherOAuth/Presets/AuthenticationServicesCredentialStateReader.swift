#if canImport(AuthenticationServices)
import AuthenticationServices
public import Tether

/// Reads the Sign in with Apple credential state from the system (`ASAuthorizationAppleIDProvider`), without a
/// network call. Not compiled on Linux: this file builds only where AuthenticationServices exists.
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, *)
public struct AuthenticationServicesCredentialStateReader: AppleCredentialStateReading {
    /// Creates a reader.
    public init() {}

    /// Asks `ASAuthorizationAppleIDProvider` for the user's credential state.
    public func credentialState(forUserID userID: String, connection: Connection) async throws -> AppleCredentialState {
        let state = try await ASAuthorizationAppleIDProvider().credentialState(forUserID: userID)
        switch state {
        case .authorized: return .authorized
        case .revoked: return .revoked
        case .transferred: return .transferred
        default: return .notFound
        }
    }
}
#endif

// Compiled everywhere: against AuthenticationServices on Apple platforms, against AuthenticationServicesShim (the
// same names, no behaviour) elsewhere, so that the mapping below is type-checked and tested on Linux too.
public import Tether

#if canImport(AuthenticationServices)
package import AuthenticationServices
#else
package import AuthenticationServicesShim
#endif

/// Reads the Sign in with Apple credential state from the system (`ASAuthorizationAppleIDProvider`), without a
/// network call.
///
/// A state this version of Tether does not know (a newer system's) is not taken for a sign-out: the reader throws
/// ``AppleCredentialStateError/unrecognizedState``, and ``AppleGrantCheck`` then keeps the session, as for any
/// check that cannot tell.
///
/// Only Apple platforms have the system's credential state; elsewhere the public initializer is unavailable (use
/// ``AppleRefreshTokenCredentialStateReader``). The same source still compiles there, and this package's tests run
/// it over a simulated provider.
@available(iOS 13, macOS 10.15, tvOS 13, watchOS 6, *)
public struct AuthenticationServicesCredentialStateReader: AppleCredentialStateReading {
    private let readState: @Sendable (String) async throws -> ASAuthorizationAppleIDProvider.CredentialState

    #if canImport(AuthenticationServices)
    /// Creates a reader.
    public init() {
        self.init(readState: { try await ASAuthorizationAppleIDProvider().credentialState(forUserID: $0) })
    }
    #else
    /// Unavailable: only Apple platforms have the system's Sign in with Apple credential state. Use
    /// `AppleRefreshTokenCredentialStateReader` instead.
    @available(
        *,
        unavailable,
        message: "Only Apple platforms have the system's credential state; use AppleRefreshTokenCredentialStateReader"
    )
    public init() {
        self.init(readState: { try await ASAuthorizationAppleIDProvider().credentialState(forUserID: $0) })
    }
    #endif

    /// Creates a reader over a function that returns the system's state: Apple's, or in tests a simulated one.
    /// - Parameter readState: Returns the credential state for a user identifier.
    package init(
        readState: @escaping @Sendable (String) async throws -> ASAuthorizationAppleIDProvider.CredentialState
    ) {
        self.readState = readState
    }

    /// Asks `ASAuthorizationAppleIDProvider` for the user's credential state.
    /// - Parameters:
    ///   - userID: The Apple user identifier (the ID token's `sub`).
    ///   - connection: The stored record (unused: the system needs only the user identifier).
    /// - Returns: The credential state.
    /// - Throws: ``AppleCredentialStateError/unrecognizedState`` for a state this version does not know, or the
    ///   system's error.
    public func credentialState(forUserID userID: String, connection: Connection) async throws -> AppleCredentialState {
        let state = try await readState(userID)
        switch state {
        case .authorized: return .authorized
        case .revoked: return .revoked
        case .notFound: return .notFound
        case .transferred: return .transferred
        // The Objective-C enumeration may gain states; an unknown one must not sign anyone out, so it is
        // "cannot tell" (a thrown error keeps the session), never `revoked` or `notFound`.
        default:
            throw AppleCredentialStateError.unrecognizedState.with(
                message: "The system reported a Sign in with Apple credential state this version does not know "
                    + "(\(state.rawValue))"
            )
        }
    }
}

/// A credential state that could not be read.
///
/// Match it like an enum: `catch let error as AppleCredentialStateError where error == .unrecognizedState`.
public struct AppleCredentialStateError: TetherError {
    /// The code, the message and the cause.
    public var details: TetherErrorDetails

    init(_ code: String, _ message: String) { details = TetherErrorDetails(code, message) }

    /// The system reported a state this version of Tether does not know; the message names its raw value. Not a
    /// sign-out: the caller cannot tell whether the grant is still active.
    public static let unrecognizedState = AppleCredentialStateError(
        "unrecognizedState",
        "The Sign in with Apple credential state is not one this version knows"
    )
}

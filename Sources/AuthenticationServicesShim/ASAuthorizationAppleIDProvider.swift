public import Foundation

/// A mechanism for generating requests to authenticate users based on their Apple ID. Here it knows no credential.
///
/// https://developer.apple.com/documentation/authenticationservices/asauthorizationappleidprovider
@available(iOS 13, macOS 10.15, tvOS 13, visionOS 1, watchOS 6, *)
open class ASAuthorizationAppleIDProvider: NSObject {
    /// Possible values for the credential state of a user.
    ///
    /// Apple's is an Objective-C enumeration, which a newer system can extend with values this SDK does not name;
    /// here it is a struct over the raw value so that tests can express such a value.
    ///
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationappleidprovider/credentialstate-swift.enum
    public struct CredentialState: RawRepresentable, Hashable, Sendable {
        /// The raw value (Apple's `NSInteger`).
        public var rawValue: Int

        /// Creates a state from its raw value; never `nil` (any raw value is kept, as Objective-C does).
        /// - Parameter rawValue: The raw value.
        public init?(rawValue: Int) { self.rawValue = rawValue }

        private init(_ rawValue: Int) { self.rawValue = rawValue }

        /// Authorization for the given user has been revoked.
        ///
        /// https://developer.apple.com/documentation/authenticationservices/asauthorizationappleidprovider/credentialstate-swift.enum/revoked
        public static let revoked = CredentialState(0)
        /// The user is authorized.
        ///
        /// https://developer.apple.com/documentation/authenticationservices/asauthorizationappleidprovider/credentialstate-swift.enum/authorized
        public static let authorized = CredentialState(1)
        /// The user can't be found.
        ///
        /// https://developer.apple.com/documentation/authenticationservices/asauthorizationappleidprovider/credentialstate-swift.enum/notfound
        public static let notFound = CredentialState(2)
        /// The app has been transferred to a different team, and you need to migrate the user's identifier.
        ///
        /// https://developer.apple.com/documentation/authenticationservices/asauthorizationappleidprovider/credentialstate-swift.enum/transferred
        public static let transferred = CredentialState(3)
    }

    /// Creates a provider.
    override public init() {}

    /// Returns the credential state for the given user; here it always fails, as there is no system to ask.
    ///
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationappleidprovider/credentialstate(foruserid:)
    /// - Parameter userID: An opaque string associated with the Apple ID that your app receives in the credential's
    ///   user property after performing a successful authentication request.
    /// - Returns: The credential state.
    /// - Throws: Always, here.
    public func credentialState(forUserID userID: String) async throws -> CredentialState {
        throw CocoaError(.featureUnsupported)
    }

    /// Returns the credential state for the given user in a completion handler; here it always reports an error.
    ///
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationappleidprovider/getcredentialstate(foruserid:completion:)
    /// - Parameters:
    ///   - userID: An opaque string associated with the Apple ID.
    ///   - completion: Receives the credential state, or an error.
    open func getCredentialState(
        forUserID userID: String,
        completion: @escaping @Sendable (CredentialState, (any Error)?) -> Void
    ) {
        completion(.notFound, CocoaError(.featureUnsupported))
    }
}

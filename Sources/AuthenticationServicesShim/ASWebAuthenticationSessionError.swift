/// The error a web authentication session passes to its completion handler.
///
/// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsessionerror
@available(iOS 12, macOS 10.15, tvOS 16, visionOS 1, watchOS 6.2, *)
public struct ASWebAuthenticationSessionError: Error, Hashable, Sendable {
    /// Error codes a web authentication session can return.
    ///
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsessionerror/code
    public enum Code: Int, Sendable {
        /// The login has been canceled.
        ///
        /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsessionerror/code/canceledlogin
        case canceledLogin = 1
        /// A context wasn't provided.
        ///
        /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsessionerror/code/presentationcontextnotprovided
        @available(iOS 13, macOS 10.15, tvOS 16, visionOS 1, watchOS 6.2, *)
        case presentationContextNotProvided = 2
        /// The context was invalid.
        ///
        /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsessionerror/code/presentationcontextinvalid
        @available(iOS 13, macOS 10.15, tvOS 16, visionOS 1, watchOS 6.2, *)
        case presentationContextInvalid = 3
    }

    /// The error code.
    public let code: Code

    /// Creates an error with a code (the shape of an imported Objective-C error's initializer).
    /// - Parameters:
    ///   - code: The error code.
    ///   - userInfo: Ignored here.
    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
    }
}

/// A configuration mistake, found before any network call. The message says exactly what is wrong and how to
/// fix it; it never contains a secret.
///
/// Match it like an enum: `catch let error as ProviderConfigurationError where error == .missingClientID`, or
/// `switch error { case .insecureEndpoint: … }` (see "Errors" in the Tether documentation).
public struct ProviderConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Code: Sendable, Hashable {
        case missingClientID
        case missingClientSecret
        case malformedRedirectURI
        case insecureEndpoint
        case invalidEndpoint
        case missingEndpoint
        case invalidScope
        case unknownParameter
        case invalidValue
        case unreadable
    }

    let code: Code

    /// What is wrong and how to fix it, in one or two sentences, without secrets.
    public let message: String

    /// The underlying error, if any.
    public let cause: (any Error)?

    init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// `client_id` is missing or empty.
    public static let missingClientID = ProviderConfigurationError(.missingClientID, "The client id is missing")
    /// The client authentication method needs a secret that is not set.
    public static let missingClientSecret = ProviderConfigurationError(
        .missingClientSecret,
        "The client secret is missing"
    )
    /// The redirect URI is not a valid RFC 8252 redirect (no scheme, `https:/` for `https://`, no reverse-DNS
    /// scheme, a fragment).
    public static let malformedRedirectURI = ProviderConfigurationError(
        .malformedRedirectURI,
        "The redirect URI is malformed"
    )
    /// An endpoint or redirect uses plain HTTP on a host that is not loopback.
    public static let insecureEndpoint = ProviderConfigurationError(
        .insecureEndpoint,
        "An endpoint uses plain HTTP on a host that is not loopback"
    )
    /// An endpoint is not an absolute https URL.
    public static let invalidEndpoint = ProviderConfigurationError(.invalidEndpoint, "An endpoint is invalid")
    /// A flow needs an endpoint the configuration does not have (such as device authorization).
    public static let missingEndpoint = ProviderConfigurationError(.missingEndpoint, "An endpoint is missing")
    /// A scope is empty or contains a space.
    public static let invalidScope = ProviderConfigurationError(.invalidScope, "A scope is invalid")
    /// A configuration file has a parameter Tether does not know (often a typo).
    public static let unknownParameter = ProviderConfigurationError(.unknownParameter, "Unknown parameter")
    /// A value has the wrong type or form.
    public static let invalidValue = ProviderConfigurationError(.invalidValue, "A value is invalid")
    /// A configuration file or metadata document could not be read or parsed.
    public static let unreadable = ProviderConfigurationError(.unreadable, "The configuration could not be read")

    /// The same kind of error with a specific message and cause.
    /// - Parameters:
    ///   - message: One sentence, without secrets.
    ///   - cause: The underlying error; the current one when `nil`.
    /// - Returns: A copy carrying the details.
    public func with(message: String, cause: (any Error)? = nil) -> ProviderConfigurationError {
        ProviderConfigurationError(code, message, cause: cause ?? self.cause)
    }

    /// The type and the message: `ProviderConfigurationError: message`.
    public var description: String { "ProviderConfigurationError: \(message)" }

    /// Errors are equal when their codes are, whatever their messages and causes.
    public static func == (lhs: ProviderConfigurationError, rhs: ProviderConfigurationError) -> Bool {
        lhs.code == rhs.code
    }

    /// Lets `switch` and `catch` match on the code: `case .missingClientID:`.
    public static func ~= (lhs: ProviderConfigurationError, rhs: any Error) -> Bool {
        (rhs as? ProviderConfigurationError)?.code == lhs.code
    }
}

public import Tether

/// A configuration mistake, found before any network call. The message says exactly what is wrong and how to
/// fix it; it never contains a secret.
///
/// Match it like an enum: `catch let error as ProviderConfigurationError where error == .missingClientID`, or
/// `switch error { case .insecureEndpoint: … }` (see "Errors" in the Tether documentation).
public struct ProviderConfigurationError: TetherError {
    /// The code, the message (what is wrong and how to fix it, in one or two sentences) and the cause.
    public var details: TetherErrorDetails

    init(_ code: String, _ message: String) { details = TetherErrorDetails(code, message) }

    /// `client_id` is missing or empty.
    public static let missingClientID = ProviderConfigurationError("missingClientID", "The client id is missing")
    /// The client authentication method needs a secret that is not set.
    public static let missingClientSecret = ProviderConfigurationError(
        "missingClientSecret",
        "The client secret is missing"
    )
    /// The redirect URI is not a valid RFC 8252 redirect (no scheme, `https:/` for `https://`, no reverse-DNS
    /// scheme, a fragment).
    public static let malformedRedirectURI = ProviderConfigurationError(
        "malformedRedirectURI",
        "The redirect URI is malformed"
    )
    /// An endpoint or redirect uses plain HTTP on a host that is not loopback.
    public static let insecureEndpoint = ProviderConfigurationError(
        "insecureEndpoint",
        "An endpoint uses plain HTTP on a host that is not loopback"
    )
    /// An endpoint is not an absolute https URL.
    public static let invalidEndpoint = ProviderConfigurationError("invalidEndpoint", "An endpoint is invalid")
    /// A flow needs an endpoint the configuration does not have (such as device authorization).
    public static let missingEndpoint = ProviderConfigurationError("missingEndpoint", "An endpoint is missing")
    /// A scope is empty or contains a space.
    public static let invalidScope = ProviderConfigurationError("invalidScope", "A scope is invalid")
    /// A configuration file has a parameter Tether does not know (often a typo).
    public static let unknownParameter = ProviderConfigurationError("unknownParameter", "Unknown parameter")
    /// A value has the wrong type or form.
    public static let invalidValue = ProviderConfigurationError("invalidValue", "A value is invalid")
    /// A configuration file or metadata document could not be read or parsed.
    public static let unreadable = ProviderConfigurationError("unreadable", "The configuration could not be read")
    /// The provider offers no way for this client to revoke its grant (GitHub without a client secret): the
    /// tokens stay valid at the provider until they expire or the user revokes them in the provider's settings.
    public static let revocationUnsupported = ProviderConfigurationError(
        "revocationUnsupported",
        "The provider offers this client no way to revoke"
    )
}

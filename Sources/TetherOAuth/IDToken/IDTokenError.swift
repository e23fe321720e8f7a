public import Tether

/// Why an ID token was rejected. It never contains the token.
///
/// Match it like an enum: `catch let error as IDTokenError where error == .expired`, or
/// `switch error { case .wrongAudience: … }` (see "Errors" in the Tether documentation).
public struct IDTokenError: TetherError {
    /// The code, the message and the cause.
    public var details: TetherErrorDetails

    init(_ code: String, _ message: String) { details = TetherErrorDetails(code, message) }

    /// Not a compact JWS with three base64url parts and JSON header and claims.
    public static let malformed = IDTokenError("malformed", "The ID token is malformed")
    /// `alg` is `none`, a MAC, or not supported.
    public static let unsupportedAlgorithm = IDTokenError(
        "unsupportedAlgorithm",
        "The ID token's algorithm is not accepted"
    )
    /// The signature does not verify with the issuer's key.
    public static let badSignature = IDTokenError("badSignature", "The ID token's signature is invalid")
    /// No key of the issuer's JWKS has the token's `kid`, even after a re-fetch.
    public static let unknownKey = IDTokenError("unknownKey", "The ID token was signed with an unknown key")
    /// The issuer's keys could not be fetched.
    public static let keysUnavailable = IDTokenError(
        "keysUnavailable",
        "The issuer's signing keys could not be fetched"
    )
    /// The issuer's keys would be fetched over plain HTTP from a host that is not loopback, where anyone on the
    /// path could replace them; only `https` URLs, or `http` to 127.0.0.0/8, `::1` or `localhost`, are used.
    public static let insecureKeySource = IDTokenError(
        "insecureKeySource",
        "The issuer's signing keys must be fetched over HTTPS"
    )
    /// `iss` is not the expected issuer.
    public static let wrongIssuer = IDTokenError("wrongIssuer", "The ID token comes from another issuer")
    /// `aud` does not contain the client id.
    public static let wrongAudience = IDTokenError("wrongAudience", "The ID token is meant for another client")
    /// `azp` is present and not the client id.
    public static let wrongAuthorizedParty = IDTokenError(
        "wrongAuthorizedParty",
        "The ID token was issued to another party"
    )
    /// `exp` has passed (beyond the skew).
    public static let expired = IDTokenError("expired", "The ID token has expired")
    /// `iat` or `nbf` is in the future (beyond the skew).
    public static let notYetValid = IDTokenError("notYetValid", "The ID token is not valid yet")
    /// `iat` is older than the maximum age.
    public static let tooOld = IDTokenError("tooOld", "The ID token was issued too long ago")
    /// A nonce was sent but the token has none.
    public static let missingNonce = IDTokenError("missingNonce", "The ID token has no nonce")
    /// The token's nonce is not the one sent.
    public static let nonceMismatch = IDTokenError("nonceMismatch", "The ID token's nonce does not match")

    /// Whether fetching the keys failed (transient), as opposed to a bad token.
    public var isTransient: Bool { self == .keysUnavailable }
}

public import Foundation

/// Where an issuer publishes the public keys that sign its tokens.
///
/// - ``jwks(_:)``: a JSON Web Key Set (RFC 7517 §5), the `jwks_uri` of OpenID Connect Discovery — Google
///   (`https://www.googleapis.com/oauth2/v3/certs`), Microsoft, Apple (`https://appleid.apple.com/auth/keys`).
/// - ``x509Certificates(_:)``: a JSON object mapping each `kid` to a PEM X.509 certificate, as Google publishes
///   for Firebase ID tokens
///   (`https://www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com`).
///
/// Both are fetched with `GET`, cached for the response's `Cache-Control: max-age`, and re-fetched when a token
/// names an unknown key.
public struct SigningKeySource: Sendable, Hashable, CustomStringConvertible {
    enum Format: Sendable, Hashable {
        case jwks
        case x509Certificates
    }

    let format: Format

    /// The address the keys are fetched from.
    public let url: URL

    /// A JSON Web Key Set at `url`.
    /// - Parameter url: The `jwks_uri`.
    /// - Returns: The source.
    public static func jwks(_ url: URL) -> SigningKeySource { SigningKeySource(format: .jwks, url: url) }

    /// A JSON object of `kid` → PEM certificate at `url`. RSA certificates verify `RS256` only (as Firebase
    /// signs); EC certificates verify the `ES*` algorithm of their curve. Certificate validity dates are not
    /// checked: the issuer rotates the list and `Cache-Control` says how long it holds.
    /// - Parameter url: The certificate list's address.
    /// - Returns: The source.
    public static func x509Certificates(_ url: URL) -> SigningKeySource {
        SigningKeySource(format: .x509Certificates, url: url)
    }

    /// The format and address without its query.
    public var description: String {
        let kind = format == .jwks ? "JWKS" : "X.509 certificates"
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.query = nil
        components?.fragment = nil
        components?.user = nil
        components?.password = nil
        return "\(kind) at \(components?.string ?? "an invalid URL")"
    }
}

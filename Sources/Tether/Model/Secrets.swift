/// A credential string that never shows itself in logs, error messages, `description`s, `dump`s or JSON
/// produced for logging.
///
/// Tether's secret types (``AccessToken``, ``RefreshToken``, ``IDToken``, ``ClientSecret``,
/// ``AuthorizationCode``, ``CodeVerifier``) all conform. The value is reachable only through the explicitly
/// named ``revealedValue`` accessor, so that every place that puts a secret on the wire is easy to find.
///
/// Encoding writes a redacted marker unless the encoder's `userInfo` carries
/// ``Foundation/CodingUserInfoKey/tetherRevealsSecrets`` set to `true`; stores set it, nothing else should.
public protocol SecretValue: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// Wraps a secret string.
    init(_ value: String)

    /// The secret itself. Use it only to put the secret on the wire or into a secure store.
    var revealedValue: String { get }

    /// The type's name as shown in redacted descriptions, such as `AccessToken`.
    static var redactedLabel: String { get }
}

/// The marker shown wherever a secret would have appeared.
package let redactedMarker = "<redacted>"

extension CodingUserInfoKey {
    /// Set this key to `true` in an encoder's `userInfo` to write secrets in clear, for storage only.
    public static let tetherRevealsSecrets = CodingUserInfoKey(rawValue: "tether.revealsSecrets")!
}

extension SecretValue {
    /// A redacted description; the secret never appears.
    public var description: String { "\(Self.redactedLabel)(\(redactedMarker))" }

    /// A redacted description; the secret never appears.
    public var debugDescription: String { description }

    /// A mirror without the secret, so that `dump` shows only the redacted marker.
    public var customMirror: Mirror { Mirror(self, children: ["value": redactedMarker], displayStyle: .struct) }

    /// Writes the secret only when the encoder explicitly asks for it (see ``Foundation/CodingUserInfoKey/tetherRevealsSecrets``).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if encoder.userInfo[.tetherRevealsSecrets] as? Bool == true {
            try container.encode(revealedValue)
        } else {
            try container.encode(redactedMarker)
        }
    }

    /// Reads a secret; a redacted marker is rejected rather than taken for the secret.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let value = try container.decode(String.self)
        guard value != redactedMarker else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "\(Self.redactedLabel) was encoded redacted and cannot be restored"
            )
        }
        self.init(value)
    }
}

/// Names the role of a ``Secret`` (access token, refresh token, …) in redacted descriptions.
public protocol SecretKind: Sendable {
    /// The type's name as shown in redacted descriptions, such as `AccessToken`.
    static var label: String { get }
}

/// A secret string of a given kind; see ``SecretValue``.
public struct Secret<Kind: SecretKind>: SecretValue {
    private let value: String

    /// Wraps a secret string.
    public init(_ value: String) { self.value = value }

    /// The secret itself. Use it only to put the secret on the wire or into a secure store.
    public var revealedValue: String { value }

    /// The kind's label, such as `AccessToken`.
    public static var redactedLabel: String { Kind.label }
}

/// The kinds of secret that Tether handles.
public enum SecretKinds {
    /// An OAuth 2.0 access token (RFC 6749 §1.4).
    public enum AccessToken: SecretKind {
        /// `AccessToken`.
        public static var label: String { "AccessToken" }
    }

    /// An OAuth 2.0 refresh token (RFC 6749 §1.5).
    public enum RefreshToken: SecretKind {
        /// `RefreshToken`.
        public static var label: String { "RefreshToken" }
    }

    /// An OpenID Connect ID token (a compact JWT).
    public enum IDToken: SecretKind {
        /// `IDToken`.
        public static var label: String { "IDToken" }
    }

    /// An OAuth 2.0 client secret (RFC 6749 §2.3.1).
    public enum ClientSecret: SecretKind {
        /// `ClientSecret`.
        public static var label: String { "ClientSecret" }
    }

    /// An OAuth 2.0 authorization code (RFC 6749 §4.1.2).
    public enum AuthorizationCode: SecretKind {
        /// `AuthorizationCode`.
        public static var label: String { "AuthorizationCode" }
    }

    /// A PKCE code verifier (RFC 7636 §4.1).
    public enum CodeVerifier: SecretKind {
        /// `CodeVerifier`.
        public static var label: String { "CodeVerifier" }
    }
}

/// An OAuth 2.0 access token (RFC 6749 §1.4).
public typealias AccessToken = Secret<SecretKinds.AccessToken>

/// An OAuth 2.0 refresh token (RFC 6749 §1.5).
public typealias RefreshToken = Secret<SecretKinds.RefreshToken>

/// An OpenID Connect ID token (a compact JWT).
public typealias IDToken = Secret<SecretKinds.IDToken>

/// An OAuth 2.0 client secret (RFC 6749 §2.3.1).
public typealias ClientSecret = Secret<SecretKinds.ClientSecret>

/// An OAuth 2.0 authorization code (RFC 6749 §4.1.2).
public typealias AuthorizationCode = Secret<SecretKinds.AuthorizationCode>

/// A PKCE code verifier (RFC 7636 §4.1).
public typealias CodeVerifier = Secret<SecretKinds.CodeVerifier>

package import Foundation
import TetherVaultCore

/// Base64url without padding (RFC 4648 §5, as RFC 7515 §2 and RFC 7636 §3 use it): JWT parts, PKCE challenges,
/// random `state` values and vault file names. The coding itself is `Base64URLCoding` in `TetherVaultCore`, which
/// the `tether` launcher shares.
package enum Base64URL {
    /// Decodes base64url text; `nil` for characters outside the alphabet (`+`, `/` included), padding, or an
    /// impossible length.
    /// - Parameter text: The encoded bytes.
    /// - Returns: The decoded bytes, or `nil`.
    package static func decode(_ text: some Collection<UInt8>) -> Data? {
        Base64URLCoding.decode(text)
    }

    /// Encodes bytes as base64url without padding.
    /// - Parameter data: The bytes.
    /// - Returns: The encoded text.
    package static func encode(_ data: some DataProtocol) -> String {
        Base64URLCoding.encode(data)
    }

    /// Decodes base64url text; `nil` for characters outside the alphabet, padding, or an impossible length.
    /// - Parameter text: The encoded bytes.
    /// - Returns: The decoded bytes, or `nil`.
    package static func decode(_ text: some StringProtocol) -> Data? {
        Base64URLCoding.decode(text)
    }
}

import Crypto
import Foundation

/// Names a refresh token without revealing it: SHA-256 over a fixed label and the token.
///
/// A store that keeps the refresh token behind the user's presence (a `KeychainStore` with
/// `refreshTokenProtection`) returns records whose ``TokenSet/refreshToken`` is `nil` and whose
/// ``TokenSet/lockedRefreshToken`` holds this fingerprint instead. The record then says that a refresh token exists
/// and which one, so that a ``Session`` can show the connection as connected, hand out a fresh access token and tell
/// a rotated refresh token from the one it read, without the user being asked. Only a refresh unlocks the token
/// itself (docs/decisions.md §37).
///
/// A fingerprint is not a ``RefreshToken`` and cannot become one: nothing that sends a refresh token (a
/// ``RefreshRequest``, a ``TokenRevoker``) can be given a fingerprint in its place.
public struct RefreshTokenFingerprint: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The 32 bytes of the digest.
    private let digest: Data

    /// The fingerprint of a refresh token.
    /// - Parameter token: The token.
    package init(of token: RefreshToken) {
        var hash = SHA256()
        hash.update(data: Data("tether.refresh-token-fingerprint\u{0}".utf8))
        hash.update(data: Data(token.revealedValue.utf8))
        digest = Data(hash.finalize())
    }

    private init(digest: Data) { self.digest = digest }

    /// The digest as 64 lowercase hexadecimal digits.
    package var hexadecimal: String { digest.map { String(format: "%02x", $0) }.joined() }

    /// The first 16 hexadecimal digits, enough to tell the refresh tokens of one connection apart.
    package var shortHexadecimal: String { String(hexadecimal.prefix(16)) }

    /// `RefreshTokenFingerprint(` and the first 8 hexadecimal digits `…)`.
    public var description: String { "RefreshTokenFingerprint(\(hexadecimal.prefix(8))…)" }

    /// Writes the hexadecimal digest.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hexadecimal)
    }

    /// Reads a hexadecimal digest of 32 bytes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        var bytes = Data()
        var index = text.startIndex
        while index < text.endIndex, let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex),
            let byte = UInt8(text[index..<next], radix: 16)
        {
            bytes.append(byte)
            index = next
        }
        guard index == text.endIndex, bytes.count == 32 else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "A refresh token fingerprint is 64 hexadecimal digits"
            )
        }
        self.init(digest: bytes)
    }
}

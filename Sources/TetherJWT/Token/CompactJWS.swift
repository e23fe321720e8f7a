package import Foundation
import Tether
package import TetherOAuth

/// A compact JWS (RFC 7515 §7.1) split into its parts, with the header decoded; nothing verified yet.
///
/// Parsing never traps: every structural problem is ``TetherOAuth/IDTokenError/malformed``, and no error
/// carries any part of the token.
package struct CompactJWS: Sendable {
    /// The JOSE header fields that verification reads.
    package struct Header: Sendable, Decodable {
        /// `alg`.
        package var algorithm: String
        /// `kid`.
        package var keyID: String?
        /// `crit`: extensions the recipient must understand; we understand none.
        package var critical: [String]?
        /// `typ`: the media type of the whole token, such as `JWT` or `at+jwt` (RFC 9068 §2.1).
        package var type: String?

        enum CodingKeys: String, CodingKey {
            case algorithm = "alg"
            case keyID = "kid"
            case critical = "crit"
            case type = "typ"
        }
    }

    /// The largest token accepted, in bytes; real ID tokens are a few kilobytes.
    package static let maximumLength = 64 * 1024

    /// The whole token, for the signature check.
    package let compact: String
    /// The decoded header.
    package let header: Header
    /// The decoded payload bytes (JSON, not yet parsed).
    package let payload: Data

    /// Splits and decodes a token.
    /// - Parameter compact: The compact serialization `header.payload.signature`.
    /// - Throws: ``TetherOAuth/IDTokenError/malformed``.
    package init(_ compact: String) throws(IDTokenError) {
        guard !compact.isEmpty, compact.utf8.count <= Self.maximumLength else {
            throw IDTokenError.malformed.with(message: "The ID token is empty or too long")
        }
        let parts = compact.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw IDTokenError.malformed.with(message: "The ID token does not have three parts")
        }
        guard let headerBytes = Base64URL.decode(parts[0]),
            let payload = Base64URL.decode(parts[1]),
            Base64URL.decode(parts[2]) != nil
        else {
            throw IDTokenError.malformed.with(message: "The ID token is not base64url-encoded")
        }
        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: headerBytes)
        } catch {
            // The decoding error is not attached: its description may quote the header.
            throw IDTokenError.malformed.with(message: "The ID token's header is not a JSON object with `alg`")
        }
        guard header.critical == nil else {
            throw IDTokenError.malformed.with(message: "The ID token uses critical header extensions")
        }
        self.compact = compact
        self.header = header
        self.payload = payload
    }
}

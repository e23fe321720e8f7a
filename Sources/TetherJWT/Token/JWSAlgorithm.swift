import JWTKit
import Tether
package import TetherOAuth

/// The asymmetric JWS algorithms (RFC 7518 §3, RFC 8037) accepted for ID tokens.
///
/// `none` and the MAC algorithms (`HS256`/`HS384`/`HS512`) are never accepted: a MAC key is the client secret,
/// which a public client does not have, and accepting them invites key-confusion attacks.
package enum JWSAlgorithm: String, Sendable, Hashable, CaseIterable {
    case rs256 = "RS256"
    case rs384 = "RS384"
    case rs512 = "RS512"
    case ps256 = "PS256"
    case ps384 = "PS384"
    case ps512 = "PS512"
    case es256 = "ES256"
    case es384 = "ES384"
    case es512 = "ES512"
    case edDSA = "EdDSA"

    /// Reads a header's `alg`.
    /// - Parameter headerValue: The `alg` value, compared case-sensitively (RFC 7515 §4.1.1).
    /// - Throws: ``TetherOAuth/IDTokenError/unsupportedAlgorithm`` for `none`, a MAC or an unknown name.
    package init(headerValue: String) throws(IDTokenError) {
        if headerValue.lowercased() == "none" {
            throw IDTokenError.unsupportedAlgorithm.with(message: "The ID token is not signed (alg none)")
        }
        if headerValue.uppercased().hasPrefix("HS") {
            throw IDTokenError.unsupportedAlgorithm.with(message: "The ID token is signed with a MAC algorithm")
        }
        guard let algorithm = JWSAlgorithm(rawValue: headerValue) else {
            throw IDTokenError.unsupportedAlgorithm
        }
        self = algorithm
    }

    /// Whether a key of `family` can verify this algorithm.
    /// - Parameter family: The key's type and curve.
    /// - Returns: `true` for RSA with RS*/PS*, the matching NIST curve with ES*, an Edwards curve with EdDSA.
    package func fits(_ family: KeyFamily) -> Bool {
        switch (self, family) {
        case (.rs256, .rsa), (.rs384, .rsa), (.rs512, .rsa), (.ps256, .rsa), (.ps384, .rsa), (.ps512, .rsa):
            true
        case (.es256, .ec(let curve)): curve == "P-256"
        case (.es384, .ec(let curve)): curve == "P-384"
        case (.es512, .ec(let curve)): curve == "P-521"
        case (.edDSA, .okp(let curve)): curve == "Ed25519"
        default: false
        }
    }

    /// The jwt-kit spelling.
    var jwkAlgorithm: JWK.Algorithm? { JWK.Algorithm(rawValue: rawValue) }
}

/// A key's type and, for elliptic curves, its curve name (`crv`, RFC 7518 §6.2.1.1, RFC 8037 §2).
package enum KeyFamily: Sendable, Hashable {
    case rsa
    case ec(String)
    case okp(String)
}

import JWTKit
import Tether
package import TetherOAuth

/// One public key of an issuer, able to verify signatures for the algorithms it accepts.
package final class VerificationKey: Sendable {
    enum Material: Sendable {
        case jwk(JWK)
        case rsaCertificate(Insecure.RSA.PublicKey)
        case p256Certificate(ES256PublicKey)
        case p384Certificate(ES384PublicKey)
        case p521Certificate(ES512PublicKey)
    }

    /// The `kid`, if the key has one.
    package let keyID: String?
    /// The key's type and curve.
    package let family: KeyFamily
    /// The algorithm the key is declared for (`alg` of a JWK); `nil` accepts any algorithm that fits the family.
    package let declaredAlgorithm: JWSAlgorithm?
    let material: Material
    private let verifiers = LockedState<[JWSAlgorithm: JWTKeyCollection]>([:])

    init(keyID: String?, family: KeyFamily, declaredAlgorithm: JWSAlgorithm?, material: Material) {
        self.keyID = keyID
        self.family = family
        self.declaredAlgorithm = declaredAlgorithm
        self.material = material
    }

    /// Whether the key may verify `algorithm`: the declared one if any, else any that fits its type.
    /// - Parameter algorithm: The token's `alg`.
    /// - Returns: Whether it is accepted.
    package func accepts(_ algorithm: JWSAlgorithm) -> Bool {
        if let declaredAlgorithm { return declaredAlgorithm == algorithm && algorithm.fits(family) }
        return algorithm.fits(family)
    }

    /// Verifies a token's signature with this key.
    /// - Parameters:
    ///   - token: The compact token, already parsed.
    ///   - algorithm: The token's `alg`, which ``accepts(_:)`` allowed.
    /// - Throws: ``TetherOAuth/IDTokenError/badSignature``.
    package func verifySignature(of token: CompactJWS, algorithm: JWSAlgorithm) async throws(IDTokenError) {
        do {
            let collection = try await verifier(for: algorithm)
            _ = try await collection.verify(token.compact, as: UncheckedPayload.self)
        } catch {
            // jwt-kit's errors are not attached: some quote decoding failures of the token.
            throw IDTokenError.badSignature
        }
    }

    /// A key collection holding only this key, set up for `algorithm`; built once per algorithm.
    func verifier(for algorithm: JWSAlgorithm) async throws -> JWTKeyCollection {
        if let cached = verifiers.withLock({ $0[algorithm] }) { return cached }
        let collection = JWTKeyCollection()
        switch material {
        case .jwk(var jwk):
            jwk.algorithm = algorithm.jwkAlgorithm
            if jwk.keyIdentifier == nil { jwk.keyIdentifier = JWKIdentifier(string: "") }
            try await collection.add(jwk: jwk, isDefault: true)
        case .rsaCertificate(let key):
            guard algorithm == .rs256 else { throw IDTokenError.unsupportedAlgorithm }
            await collection.add(rsa: key, digestAlgorithm: .sha256)
        case .p256Certificate(let key): await collection.add(ecdsa: key)
        case .p384Certificate(let key): await collection.add(ecdsa: key)
        case .p521Certificate(let key): await collection.add(ecdsa: key)
        }
        verifiers.withLock { $0[algorithm] = collection }
        return collection
    }

    /// Checks that the key can be used at all, so that a broken key is dropped when the set is loaded.
    func prepare() async throws {
        guard let algorithm = declaredAlgorithm ?? JWSAlgorithm.allCases.first(where: { $0.fits(family) }) else {
            throw IDTokenError.unsupportedAlgorithm
        }
        _ = try await verifier(for: algorithm)
    }
}

/// A payload that decodes from any JSON and checks nothing: the claims are checked by ``ClaimValidation``.
private struct UncheckedPayload: JWTPayload {
    init(from decoder: any Decoder) throws {}
    func encode(to encoder: any Encoder) throws {}
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

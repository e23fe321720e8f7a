package import Crypto

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// What else a vault key protects beside the records: settings authenticated with a key derived from it, and small
/// secrets sealed with it. One place for the core's `VaultStore` and the `tether` launcher.
package enum VaultKeyDerivations {
    /// The HKDF `info` of the key that authenticates settings. Its own label keeps that key apart from the
    /// encryption key and from any other key derived from the vault key later.
    static let authenticationKeyInfo = Data("tether.vault.settings-authentication.v1".utf8)

    /// The key that authenticates settings kept beside the vault: HKDF-SHA256 (RFC 5869, section 2) over the vault
    /// key, without salt, with ``authenticationKeyInfo``.
    /// - Parameter vaultKey: The vault key.
    /// - Returns: A 256-bit key, never the vault key itself.
    package static func authenticationKey(_ vaultKey: SymmetricKey) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: vaultKey, info: authenticationKeyInfo, outputByteCount: 32)
    }

    /// HMAC-SHA256 (RFC 2104) with `authenticationKey` over the length of `context` (4 bytes, big-endian),
    /// `context` and `message`, base64url without padding.
    /// - Parameters:
    ///   - message: The settings' canonical bytes.
    ///   - context: What they are, such as `tether.profile.v1`.
    ///   - authenticationKey: The ``authenticationKey(_:)`` of the vault key.
    /// - Returns: The code.
    package static func authenticationCode(
        for message: Data,
        context: String,
        authenticationKey: SymmetricKey
    ) -> String {
        let code = HMAC<SHA256>.authenticationCode(
            for: authenticatedBytes(message, context: context),
            using: authenticationKey
        )
        return Base64URLCoding.encode(Data(code))
    }

    /// Checks, in constant time, a code made by ``authenticationCode(for:context:authenticationKey:)``.
    /// - Returns: Whether it matches.
    package static func isValidAuthenticationCode(
        _ code: String,
        for message: Data,
        context: String,
        authenticationKey: SymmetricKey
    ) -> Bool {
        guard let bytes = Base64URLCoding.decode(code) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(
            bytes,
            authenticating: authenticatedBytes(message, context: context),
            using: authenticationKey
        )
    }

    private static func authenticatedBytes(_ message: Data, context: String) -> Data {
        let label = Data(context.utf8)
        var bytes = Data()
        withUnsafeBytes(of: UInt32(label.count).bigEndian) { bytes.append(contentsOf: $0) }
        bytes.append(label)
        bytes.append(message)
        return bytes
    }

    /// Why a sealed secret did not open.
    package enum OpenFailure: Error {
        /// Not `base64(nonce ‖ ciphertext ‖ tag)`.
        case notSealed
        /// Another key or context, or changed.
        case doesNotAuthenticate
    }

    /// Seals a small secret with the vault key: AES-GCM with `context` as associated data.
    /// - Returns: `base64(nonce ‖ ciphertext ‖ tag)`.
    /// - Throws: What AES-GCM throws.
    package static func seal(_ secret: String, context: String, key: SymmetricKey) throws -> String {
        let box = try AES.GCM.seal(Data(secret.utf8), using: key, authenticating: Data(context.utf8))
        guard let combined = box.combined else { throw CryptoKitError.incorrectParameterSize }
        return combined.base64EncodedString()
    }

    /// Opens what ``seal(_:context:key:)`` produced.
    /// - Throws: ``OpenFailure``.
    package static func open(sealed text: String, context: String, key: SymmetricKey) throws(OpenFailure) -> String {
        guard let data = Data(base64Encoded: text), let box = try? AES.GCM.SealedBox(combined: data) else {
            throw .notSealed
        }
        guard let plain = try? AES.GCM.open(box, using: key, authenticating: Data(context.utf8)) else {
            throw .doesNotAuthenticate
        }
        return String(decoding: plain, as: UTF8.self)
    }
}

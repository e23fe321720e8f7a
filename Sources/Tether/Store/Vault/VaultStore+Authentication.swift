import Crypto
package import Foundation

extension VaultStore {
    /// The HKDF `info` of the key that ``authenticationCode(for:context:)`` uses. Its own label keeps that key apart
    /// from the encryption key and from any other key derived from the vault key later.
    static let authenticationKeyInfo = Data("tether.vault.settings-authentication.v1".utf8)

    /// The key that authenticates settings kept beside the vault: HKDF-SHA256 (RFC 5869, section 2) over the vault
    /// key, without salt, with ``authenticationKeyInfo``. It is never the encryption key itself, so a MAC cannot
    /// help anyone with AES-GCM and the other way round.
    func authenticationKey() throws -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: try currentKey().symmetricKey,
            info: Self.authenticationKeyInfo,
            outputByteCount: 32
        )
    }

    /// Authenticates settings that are kept in a plain file beside the vault (a command-line tool's profiles), so
    /// that someone who can write the file but does not have the vault key cannot change them unnoticed.
    ///
    /// HMAC-SHA256 (RFC 2104) with a key derived from the vault key, over the length of `context` (4 bytes,
    /// big-endian), `context` and `message`. The caller chooses a canonical encoding for `message`.
    /// - Parameters:
    ///   - message: The settings' canonical bytes.
    ///   - context: What they are, such as `tether.profile.v1`; a code made for one context fails in another.
    /// - Returns: The code, base64url without padding.
    /// - Throws: ``CredentialStoreError/unavailable`` while the vault's key cannot be read (a locked keyring).
    package func authenticationCode(for message: Data, context: String) throws -> String {
        let code = HMAC<SHA256>.authenticationCode(
            for: Self.authenticatedBytes(message, context: context),
            using: try authenticationKey()
        )
        return Base64URL.encode(Data(code))
    }

    /// Checks, in constant time, a code made by ``authenticationCode(for:context:)``.
    /// - Throws: ``CredentialStoreError/wrongKey`` when the code does not match: the message or the code was
    ///   changed, or it was made with another vault key or for another context. The message names neither.
    package func verifyAuthenticationCode(_ code: String, for message: Data, context: String) throws {
        let macKey = try authenticationKey()
        guard let bytes = Base64URL.decode(code),
            HMAC<SHA256>.isValidAuthenticationCode(
                bytes,
                authenticating: Self.authenticatedBytes(message, context: context),
                using: macKey
            )
        else {
            throw CredentialStoreError.wrongKey.with(
                message: "Settings do not match their authentication code (changed, or bound to another vault key)"
            )
        }
    }

    private static func authenticatedBytes(_ message: Data, context: String) -> Data {
        let label = Data(context.utf8)
        var bytes = Data()
        withUnsafeBytes(of: UInt32(label.count).bigEndian) { bytes.append(contentsOf: $0) }
        bytes.append(label)
        bytes.append(message)
        return bytes
    }
}

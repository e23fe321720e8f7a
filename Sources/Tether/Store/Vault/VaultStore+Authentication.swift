import Crypto
package import Foundation
import TetherVaultCore

extension VaultStore {
    /// The key that authenticates settings kept beside the vault: HKDF-SHA256 (RFC 5869, section 2) over the vault
    /// key (see `VaultKeyDerivations`). It is never the encryption key itself, so a MAC cannot help anyone with
    /// AES-GCM and the other way round.
    func authenticationKey() throws -> SymmetricKey {
        VaultKeyDerivations.authenticationKey(try currentKey().symmetricKey)
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
        VaultKeyDerivations.authenticationCode(
            for: message,
            context: context,
            authenticationKey: try authenticationKey()
        )
    }

    /// Checks, in constant time, a code made by ``authenticationCode(for:context:)``.
    /// - Throws: ``CredentialStoreError/wrongKey`` when the code does not match: the message or the code was
    ///   changed, or it was made with another vault key or for another context. The message names neither.
    package func verifyAuthenticationCode(_ code: String, for message: Data, context: String) throws {
        let macKey = try authenticationKey()
        guard
            VaultKeyDerivations.isValidAuthenticationCode(
                code,
                for: message,
                context: context,
                authenticationKey: macKey
            )
        else {
            throw CredentialStoreError.wrongKey.with(
                message: "Settings do not match their authentication code (changed, or bound to another vault key)"
            )
        }
    }
}

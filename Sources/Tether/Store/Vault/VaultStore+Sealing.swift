import Crypto
package import Foundation
import TetherVaultCore

extension VaultStore {
    /// Seals a small secret that belongs beside the vault's records (a command-line tool's client secret) with the
    /// vault's key: AES-GCM, with `context` as associated data so that a sealed value cannot be moved to another
    /// name. The result is base64 text, safe to keep in a plain settings file.
    /// - Parameters:
    ///   - secret: The secret.
    ///   - context: What the secret belongs to, such as `client-secret:calendar`.
    /// - Returns: `base64(nonce ‖ ciphertext ‖ tag)`.
    package func seal(_ secret: String, context: String) throws -> String {
        let key = try currentKey()
        do {
            return try VaultKeyDerivations.seal(secret, context: context, key: key.symmetricKey)
        } catch {
            throw CredentialStoreError.io.with(message: "Could not seal a secret with the vault key", cause: error)
        }
    }

    /// Opens what ``seal(_:context:)`` produced.
    /// - Throws: ``CredentialStoreError/wrongKey`` when the key or the context does not match (or the text was
    ///   changed), ``CredentialStoreError/corrupted`` when it is not a sealed value at all.
    package func open(sealed text: String, context: String) throws -> String {
        guard let data = Data(base64Encoded: text), (try? AES.GCM.SealedBox(combined: data)) != nil else {
            throw CredentialStoreError.corrupted.with(message: "A sealed secret is not in the sealed format")
        }
        let key = try currentKey()
        do {
            return try VaultKeyDerivations.open(sealed: text, context: context, key: key.symmetricKey)
        } catch {
            switch error {
            case .notSealed:
                throw CredentialStoreError.corrupted.with(message: "A sealed secret is not in the sealed format")
            case .doesNotAuthenticate:
                throw CredentialStoreError.wrongKey.with(
                    message: "A sealed secret does not open with this vault key (another key, or it was changed)"
                )
            }
        }
    }

    /// Seals bytes that belong beside the vault's records (the calendar cache) with the vault's key: AES-GCM, with
    /// `context` as associated data so that sealed bytes cannot be moved to another name.
    /// - Parameters:
    ///   - bytes: The plaintext.
    ///   - context: What the bytes belong to.
    /// - Returns: `nonce ‖ ciphertext ‖ tag`.
    package func seal(bytes: Data, context: Data) throws -> Data {
        let key = try currentKey()
        do {
            let box = try AES.GCM.seal(bytes, using: key.symmetricKey, authenticating: context)
            guard let combined = box.combined else { throw CredentialStoreError.io }
            return combined
        } catch {
            throw CredentialStoreError.io.with(message: "Could not seal data with the vault key", cause: error)
        }
    }

    /// Opens what ``seal(bytes:context:)`` produced.
    /// - Throws: ``CredentialStoreError/wrongKey`` when the key or the context does not match (or the bytes were
    ///   changed), ``CredentialStoreError/corrupted`` when they are too short to be sealed bytes.
    package func open(sealedBytes sealed: Data, context: Data) throws -> Data {
        guard let box = try? AES.GCM.SealedBox(combined: sealed) else {
            throw CredentialStoreError.corrupted.with(message: "Sealed data is not in the sealed format")
        }
        let key = try currentKey()
        guard let plain = try? AES.GCM.open(box, using: key.symmetricKey, authenticating: context) else {
            throw CredentialStoreError.wrongKey.with(
                message: "Sealed data does not open with this vault key (another key, or it was changed)"
            )
        }
        return plain
    }
}

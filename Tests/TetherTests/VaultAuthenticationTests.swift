import Crypto
import Foundation
import Testing
import Tether

/// Authentication codes for settings kept beside the vault (the command line's connections.json).
struct VaultAuthenticationTests {
    let message = Data(#"{"name":"work","token_endpoint":"https://login.example.com/token"}"#.utf8)

    @Test func aCodeVerifiesForItsMessageContextAndKeyOnly() throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let store = try fixture.store()
        let code = try store.authenticationCode(for: message, context: "tether.profile.v1")
        try store.verifyAuthenticationCode(code, for: message, context: "tether.profile.v1")
        // The same key from another store instance: the code is a function of the key, not of the instance.
        try fixture.store().verifyAuthenticationCode(code, for: message, context: "tether.profile.v1")

        var changed = message
        changed[changed.count - 3] ^= 0x01
        #expect(throws: CredentialStoreError.wrongKey) {
            try store.verifyAuthenticationCode(code, for: changed, context: "tether.profile.v1")
        }
        #expect(throws: CredentialStoreError.wrongKey) {
            try store.verifyAuthenticationCode(code, for: message, context: "tether.profile.v2")
        }
        #expect(throws: CredentialStoreError.wrongKey) {
            try fixture.store(key: .generate()).verifyAuthenticationCode(
                code,
                for: message,
                context: "tether.profile.v1"
            )
        }
        for broken in ["", "not base64url!", String(code.dropLast(2))] {
            #expect(throws: CredentialStoreError.wrongKey) {
                try store.verifyAuthenticationCode(broken, for: message, context: "tether.profile.v1")
            }
        }
    }

    @Test func theMACKeyIsDerivedAndIsNotTheEncryptionKey() throws {
        let fixture = VaultFixture()
        defer { fixture.remove() }
        let store = try fixture.store()
        let code = try store.authenticationCode(for: message, context: "tether.profile.v1")
        // The same construction keyed directly with the vault key must not verify: the MAC key is HKDF's output.
        let rawKey = SymmetricKey(data: try #require(Data(base64Encoded: fixture.key.revealedBase64)))
        var input = Data([0, 0, 0, UInt8("tether.profile.v1".utf8.count)])
        input.append(Data("tether.profile.v1".utf8))
        input.append(message)
        let withRawKey = Data(HMAC<SHA256>.authenticationCode(for: input, using: rawKey))
        #expect(Base64URL.encode(withRawKey) != code)
        let derived = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: rawKey,
            info: Data("tether.vault.settings-authentication.v1".utf8),
            outputByteCount: 32
        )
        #expect(Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: input, using: derived))) == code)
    }
}

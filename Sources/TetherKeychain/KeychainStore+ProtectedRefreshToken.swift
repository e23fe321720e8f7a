import Foundation
import Logging
package import Tether

#if canImport(Security)
import Security
#else
import SecItemShim
#endif

#if canImport(LocalAuthentication)
import LocalAuthentication
#else
import LocalAuthenticationShim
#endif

// The item that holds a refresh token behind the user's presence (Configuration.refreshTokenProtection). Its service
// is the store's with ".refresh" appended, its account the connection's identifier and the start of the token's
// fingerprint, so that a rotated token is added before the old one is removed and no step leaves the record
// pointing at nothing. Its data is the token; its access control
// (https://developer.apple.com/documentation/security/ksecattraccesscontrol) pairs
// kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly with the policy's SecAccessControlCreateFlags. Reading its data is
// the one keychain call that can show a prompt; it passes an LAContext
// (https://developer.apple.com/documentation/security/ksecuseauthenticationcontext) that the store reuses for
// RefreshTokenProtection.reuseDuration after the user authenticated.

extension KeychainStore.RefreshTokenProtection {
    /// Checks what the keychain would otherwise refuse at the first write, or what would make no sense.
    func validate(synchronization: KeychainStore.Synchronization) throws(CredentialStoreError) {
        #if os(tvOS)
        throw CredentialStoreError.invalidConfiguration.with(
            message: "Apple TV has no Face ID, Touch ID or passcode prompt to protect a refresh token with; create "
                + "the store without refreshTokenProtection"
        )
        #else
        if synchronization.connections.isSynchronizable {
            throw CredentialStoreError.invalidConfiguration.with(
                message: "A refresh token behind the user's presence is bound to this device's passcode and "
                    + "biometry and never syncs, so synchronization.connections must be .localOnly"
            )
        }
        if reuseDuration < .zero {
            throw CredentialStoreError.invalidConfiguration.with(
                message: "refreshTokenProtection.reuseDuration must not be negative"
            )
        }
        if prompt.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw CredentialStoreError.invalidConfiguration.with(
                message: "refreshTokenProtection.prompt must say why the app asks, for the authentication prompt"
            )
        }
        #endif
    }
}

/// The authentication context a store hands to the keychain, kept for the reuse duration once the user
/// authenticated with it.
final class AuthenticationContexts: @unchecked Sendable {
    private let lock = NSLock()
    /// The context in use, and the time since the user authenticated with it (`nil` before that).
    private var current: (context: LAContext, sinceAuthenticated: (@Sendable () -> Duration)?)?

    /// The context to read with: the last one while its authentication is younger than `reuse`, else a new one.
    func context(prompt: String, reuse: Duration) -> LAContext {
        lock.withLock {
            if let current, let since = current.sinceAuthenticated, since() < reuse {
                return current.context
            }
            current?.context.invalidate()
            let context = LAContext()
            context.localizedReason = prompt
            current = (context, nil)
            return context
        }
    }

    /// Starts the reuse window of `context`, which the user just authenticated with.
    func authenticated(_ context: LAContext, clock: any Clock<Duration>) {
        let since = Self.stopwatch(on: clock)
        lock.withLock {
            guard current?.context === context, current?.sinceAuthenticated == nil else { return }
            current = (context, since)
        }
    }

    /// Drops `context` after a failed or canceled authentication, so that the next read starts afresh.
    func discard(_ context: LAContext) {
        lock.withLock {
            guard current?.context === context else { return }
            context.invalidate()
            current = nil
        }
    }

    private static func stopwatch(on clock: some Clock<Duration>) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }
}

extension KeychainStore: RefreshTokenUnlocking {
    /// The kind of the items that hold protected refresh tokens.
    var protectedKind: ItemKind {
        ItemKind(service: configuration.service + ".refresh", sync: .localOnly, name: "refresh token")
    }

    /// The account of the protected item of a refresh token.
    func protectedAccount(_ id: ConnectionID, _ fingerprint: RefreshTokenFingerprint) -> String {
        "\(id.rawValue)#\(fingerprint.shortHexadecimal)"
    }

    /// The label every protected item of a connection shares, so that one query deletes them all.
    func protectedLabel(_ id: ConnectionID) -> String { "Tether refresh token of \(id.rawValue)" }

    private func protectedQuery(_ id: ConnectionID, account: String?) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: protectedKind.service,
            kSecUseDataProtectionKeychain as String: true,
        ]
        if let account {
            query[kSecAttrAccount as String] = account
        } else {
            query[kSecAttrLabel as String] = protectedLabel(id)
        }
        if let group = configuration.accessGroup { query[kSecAttrAccessGroup as String] = group }
        return query
    }

    // MARK: Writing

    /// With ``Configuration/refreshTokenProtection``, moves the record's refresh token into a protected item and
    /// leaves its fingerprint in the record.
    /// - Returns: The fingerprint of the protected item this call added, so that a failed record write can remove
    ///   it again; `nil` when nothing was added.
    /// - Throws: ``CredentialStoreError/invalidConfiguration`` when the device has no passcode; otherwise as a write.
    func protectRefreshToken(in connection: inout Connection) throws -> RefreshTokenFingerprint? {
        guard let protection = configuration.refreshTokenProtection, let token = connection.tokens.refreshToken else {
            return nil
        }
        let fingerprint = RefreshTokenFingerprint(of: token)
        var error: Unmanaged<CFError>?
        guard
            let access = SecAccessControlCreateWithFlags(
                nil,
                kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly,
                protection.policy.flags,
                &error
            )
        else {
            let cause = error?.takeRetainedValue()
            throw CredentialStoreError.invalidConfiguration.with(
                message: "The keychain could not create the access control \(protection.policy)",
                cause: cause
            )
        }
        var attributes = protectedQuery(connection.id, account: protectedAccount(connection.id, fingerprint))
        attributes[kSecAttrSynchronizable as String] = false
        attributes[kSecAttrLabel as String] = protectedLabel(connection.id)
        attributes[kSecAttrAccessControl as String] = access
        attributes[kSecValueData as String] = Data(token.revealedValue.utf8)
        let status = secItems.add(attributes as CFDictionary, nil)
        connection.tokens = connection.tokens.lockingRefreshToken()
        switch status {
        case errSecSuccess:
            logger.debug("keychain.refresh_token.protected", metadata: ["keychain.connection": "\(connection.id)"])
            return fingerprint
        case errSecDuplicateItem:
            // The account names the token's fingerprint: the item there already holds this very token.
            return nil
        case errSecAuthFailed:
            // An item that needs the user's presence cannot exist on a device without a passcode
            // (https://developer.apple.com/documentation/security/ksecattraccessiblewhenpasscodesetthisdeviceonly);
            // the keychain answers errSecAuthFailed.
            logger.debug("keychain.refresh_token.no_passcode", metadata: ["keychain.connection": "\(connection.id)"])
            throw CredentialStoreError.invalidConfiguration.with(
                message: "The refresh token is to be kept behind the user's presence (\(protection.policy)), but "
                    + "this device has no passcode (OSStatus \(status)); ask the user to set one, or create the store "
                    + "without refreshTokenProtection",
                cause: KeychainStatus(status: status)
            )
        default:
            throw self.error(for: status, operation: "add", group: configuration.accessGroup)
        }
    }

    /// Removes the protected item of a refresh token the record no longer names. Best effort: an item left behind
    /// holds a spent token, needs the user to be read, and goes with the connection's other items at sign-out.
    func removeProtectedItem(of id: ConnectionID, _ fingerprint: RefreshTokenFingerprint) {
        let status = secItems.delete(protectedQuery(id, account: protectedAccount(id, fingerprint)) as CFDictionary)
        guard status != errSecSuccess, status != errSecItemNotFound else { return }
        logger.debug(
            "keychain.refresh_token.cleanup_failed",
            metadata: ["keychain.connection": "\(id)", "keychain.status": "\(status)"]
        )
    }

    /// Deletes every protected item of a connection.
    func deleteProtectedItems(of id: ConnectionID) throws {
        for _ in 0..<16 {
            let status = secItems.delete(protectedQuery(id, account: nil) as CFDictionary)
            switch status {
            case errSecSuccess: continue
            case errSecItemNotFound: return
            default: throw error(for: status, operation: "delete", group: configuration.accessGroup)
            }
        }
    }

    // MARK: Unlocking

    /// Reads a protected refresh token: the one keychain call that can ask the user to authenticate.
    /// - Parameters:
    ///   - id: The connection.
    ///   - fingerprint: The record's locked refresh token.
    /// - Returns: The refresh token.
    /// - Throws: ``CredentialStoreError/locked`` when the user canceled (`errSecUserCanceled`) or failed
    ///   (`errSecAuthFailed`) the authentication; ``RefreshError`` `.permanent` with ``SignInReason/biometryChanged``
    ///   (for ``RefreshTokenProtection/Policy/biometryCurrentSet``) or ``SignInReason/protectionLost`` when the item
    ///   is gone (`errSecItemNotFound`: its enrolment changed, or the passcode was removed); `unavailable` while the
    ///   device is locked; `corrupted` when the item does not hold the token the record names.
    package func unlockRefreshToken(
        for id: ConnectionID,
        fingerprint: RefreshTokenFingerprint
    ) async throws -> RefreshToken {
        let account = protectedAccount(id, fingerprint)
        return try await withWriterLock(protectedKind, account) { () throws -> RefreshToken in
            var query = protectedQuery(id, account: account)
            query[kSecReturnData as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            let protection = configuration.refreshTokenProtection
            #if os(tvOS)
            let context: LAContext? = nil
            #else
            let created = authenticationContexts.context(
                prompt: protection?.prompt ?? "",
                reuse: protection?.reuseDuration ?? .zero
            )
            query[kSecUseAuthenticationContext as String] = created
            let context: LAContext? = created
            #endif
            var result: CFTypeRef?
            let status = secItems.copyMatching(query as CFDictionary, &result)
            let metadata: Logger.Metadata = ["keychain.connection": "\(id)", "keychain.status": "\(status)"]
            switch status {
            case errSecSuccess:
                if let context { authenticationContexts.authenticated(context, clock: clock) }
            case errSecUserCanceled, errSecAuthFailed:
                if let context { authenticationContexts.discard(context) }
                logger.debug("keychain.refresh_token.locked", metadata: metadata)
                let what = status == errSecUserCanceled ? "canceled" : "did not pass"
                throw CredentialStoreError.locked.with(
                    message: "The user \(what) the authentication that unlocks the refresh token of \(id) "
                        + "(OSStatus \(status)); the sign-in is kept and the next refresh asks again",
                    cause: KeychainStatus(status: status)
                )
            case errSecItemNotFound:
                if let context { authenticationContexts.discard(context) }
                let reason = (protection?.policy ?? .biometryCurrentSet).reasonWhenLost
                logger.debug("keychain.refresh_token.lost", metadata: metadata)
                throw RefreshError.permanent(
                    reason,
                    "The keychain no longer has the protected refresh token of \(id) (OSStatus \(status)): "
                        + reason.message
                )
            default:
                if let context { authenticationContexts.discard(context) }
                throw error(for: status, operation: "read", group: configuration.accessGroup)
            }
            guard let data = result as? Data, let value = String(data: data, encoding: .utf8) else {
                throw CredentialStoreError.corrupted.with(
                    message: "The protected refresh token item of \(id) holds no readable token"
                )
            }
            let token = RefreshToken(value)
            guard RefreshTokenFingerprint(of: token) == fingerprint else {
                throw CredentialStoreError.corrupted.with(
                    message: "The protected refresh token item of \(id) holds another token than the record names"
                )
            }
            logger.debug("keychain.refresh_token.unlocked", metadata: ["keychain.connection": "\(id)"])
            return token
        }
    }
}

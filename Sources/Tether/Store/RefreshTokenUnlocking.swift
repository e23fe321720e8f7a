/// A store that can keep a connection's refresh token behind the user's presence, apart from the record.
///
/// Such a store returns records whose refresh token is locked: ``TokenSet/refreshToken`` is `nil` and
/// ``TokenSet/lockedRefreshToken`` names it. Reading a record never asks the user anything, so restoring a session
/// and handing out a fresh access token never prompt. A ``Session`` calls ``unlockRefreshToken(for:fingerprint:)``
/// once per refresh, under the refresh lease, right before it sends the refresh (docs/decisions.md §37).
package protocol RefreshTokenUnlocking: CredentialStore {
    /// Unlocks the refresh token of a record, asking the user to authenticate if the store's protection needs it.
    /// - Parameters:
    ///   - id: The connection.
    ///   - fingerprint: The record's ``TokenSet/lockedRefreshToken``.
    /// - Returns: The refresh token, whose fingerprint is `fingerprint`.
    /// - Throws: ``CredentialStoreError/locked`` when the user canceled or failed the authentication (transient);
    ///   a permanent ``RefreshError`` when the token can never be unlocked again (such as
    ///   ``SignInReason/biometryChanged``); another ``CredentialStoreError`` as for a read.
    func unlockRefreshToken(for id: ConnectionID, fingerprint: RefreshTokenFingerprint) async throws -> RefreshToken
}

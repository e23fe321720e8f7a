/// Asks the provider, at restore, whether a stored grant is still good — for providers that can say so without
/// a refresh, such as Sign in with Apple's credential state.
///
/// A ``Session`` given one calls it during ``Session/restore()``; `.revoked` ends the session (needs sign-in,
/// tokens removed, account kept as a hint). Errors are logged and ignored: a check that cannot run is never a
/// reason to sign anyone out.
public protocol GrantCheck: Sendable {
    /// Checks the grant of a stored connection.
    /// - Parameter connection: The record.
    /// - Returns: `.active` or `.revoked(reason)`.
    func grantStatus(of connection: Connection) async throws -> GrantStatus
}

/// What a ``GrantCheck`` found.
public enum GrantStatus: Sendable, Hashable {
    /// The grant is still good.
    case active
    /// The grant is gone; the user must sign in again.
    case revoked(SignInReason)
}

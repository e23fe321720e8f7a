/// An error that knows what it means for a session: OAuth clients' errors conform, so that a ``Session`` can tell
/// a revoked grant from a network failure.
public protocol RefreshErrorConvertible: Error {
    /// The failure, classified.
    var refreshError: RefreshError { get }
}

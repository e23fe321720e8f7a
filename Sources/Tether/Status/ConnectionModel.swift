#if canImport(Observation)
public import Observation

/// An observable view of a ``Session``'s status, for a SwiftUI settings row.
///
/// ```swift
/// struct AccountRow: View {
///     let model: ConnectionModel
///     var body: some View { Text(model.status.isConnected ? "Connected" : "Not connected") }
/// }
/// ```
///
/// The model follows the session until it is released or ``stop()`` is called.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
@MainActor
@Observable
public final class ConnectionModel {
    /// The session's current status.
    public private(set) var status: ConnectionStatus
    /// When the grant ends and why, read with every status update (see ``Session/grantEnd``); show "expires soon"
    /// when ``GrantEnd/isSoon``.
    public private(set) var grantEnd: GrantEnd?

    /// The session this model follows.
    @ObservationIgnored public let session: Session

    @ObservationIgnored private let updates: Task<Void, Never>

    /// Creates a model that follows `session`.
    /// - Parameters:
    ///   - session: The session to follow.
    ///   - initialStatus: What to show until the first update arrives; `.restoring` by default.
    public init(session: Session, initialStatus: ConnectionStatus = .restoring) {
        self.session = session
        self.status = initialStatus
        // The task holds the model weakly, so that releasing the model ends it (see `deinit`).
        let reference = ModelReference()
        updates = Task { @MainActor in
            for await status in await session.statusUpdates() {
                let grantEnd = await session.grantEnd
                guard let model = reference.model else { return }
                model.status = status
                model.grantEnd = grantEnd
            }
        }
        reference.model = self
    }

    /// Stops following the session.
    public func stop() {
        updates.cancel()
    }

    deinit {
        updates.cancel()
    }
}
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
@MainActor
private final class ModelReference {
    weak var model: ConnectionModel?
}
#endif

import Foundation
import Logging
import Testing
import Tether
import TetherTesting

/// Everything one session test needs, wired to a manual clock.
struct SessionHarness {
    let clock: ManualClock
    let issuer: TestIssuer
    let store: InstrumentedStore
    let session: Session

    static let account = Account(providerID: "dev", subject: "user-1", displayIdentifier: "jane@example.com")

    init(
        lifetime: Duration = .seconds(3600),
        rotates: Bool = true,
        configuration: Session.Configuration = Session.Configuration(retry: .init(jitter: 0)),
        store: (any CredentialStore)? = nil,
        logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        let clock = ManualClock()
        self.clock = clock
        self.issuer = TestIssuer(lifetime: lifetime, rotatesRefreshTokens: rotates, dateSource: clock.dateSource)
        self.store = InstrumentedStore(store ?? MemoryStore(clock: clock))
        self.session = Session(
            id: "dev",
            store: self.store,
            refresher: issuer,
            revoker: issuer,
            configuration: configuration,
            clock: clock,
            dateSource: clock.dateSource,
            logger: logger
        )
    }

    /// Another session on the same store and issuer, like a second process.
    func sibling(configuration: Session.Configuration = Session.Configuration(retry: .init(jitter: 0))) -> Session {
        Session(
            id: "dev",
            store: store,
            refresher: issuer,
            revoker: issuer,
            configuration: configuration,
            clock: clock,
            dateSource: clock.dateSource
        )
    }

    /// Signs the test account in through the issuer.
    @discardableResult
    func signIn(metadata: [String: String] = [:]) async throws -> Connection {
        try await session.signIn(
            account: Self.account,
            tokens: issuer.signInTokens(subject: "user-1"),
            metadata: metadata
        )
    }

    /// Stores a record directly, as a previous launch would have.
    @discardableResult
    func seed(_ tokens: TokenSet, metadata: [String: String] = [:]) async throws -> Connection {
        try await store.write(Connection(id: "dev", account: Self.account, tokens: tokens, metadata: metadata))
    }

    /// Signs in, lets the token expire and starts a caller whose refresh the issuer holds until
    /// `issuer.releaseRefreshes()`; returns once the session reports `.refreshing`.
    func callerWaitingOnAHeldRefresh() async throws -> (
        caller: Task<AccessToken, any Error>, recorder: StatusRecorder
    ) {
        try await signIn()
        clock.advance(by: .seconds(3600))
        issuer.holdRefreshes()
        let recorder = await StatusRecorder(session)
        let caller = Task { try await session.validAccessToken() }
        #expect(await recorder.waitFor(.refreshing))
        return (caller, recorder)
    }
}

/// Collects a session's status updates in the background.
final class StatusRecorder: Sendable {
    private let seen = LockedBox<[ConnectionStatus]>([])
    private let task: Task<Void, Never>

    init(_ session: Session) async {
        let stream = await session.statusUpdates(bufferingPolicy: .unbounded)
        let seen = self.seen
        task = Task {
            for await status in stream { seen.mutate { $0.append(status) } }
        }
    }

    var statuses: [ConnectionStatus] { seen.value }
    var kinds: [ConnectionStatus.Kind] { statuses.map(\.kind) }

    /// Waits (yielding) until a status of `kind` has been seen.
    func waitFor(_ kind: ConnectionStatus.Kind, maximumYields: Int = 200_000) async -> Bool {
        for _ in 0..<maximumYields {
            if kinds.contains(kind) { return true }
            await Task.yield()
        }
        return false
    }

    /// Waits until the updates stop changing for a while, then returns them.
    func settled() async -> [ConnectionStatus.Kind] {
        for _ in 0..<2_000 { await Task.yield() }
        return kinds
    }

    deinit { task.cancel() }
}

/// A minimal lock-protected box for test bookkeeping.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
    func mutate<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&stored)
    }
}

/// Removes consecutive duplicates, so sequences read as transitions.
func transitions(_ kinds: [ConnectionStatus.Kind]) -> [ConnectionStatus.Kind] {
    kinds.reduce(into: []) { result, kind in if result.last != kind { result.append(kind) } }
}

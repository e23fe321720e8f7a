import Foundation
import Testing
import Tether
import TetherTesting

/// Sign-out racing a refresh that rotates the refresh token.
struct SignOutRaceTests {
    /// A store that reports each request for the refresh lease, before it is granted.
    final class LeaseProbeStore: CredentialStore {
        let base: any CredentialStore
        let events: AsyncStream<String>.Continuation

        init(_ base: any CredentialStore, events: AsyncStream<String>.Continuation) {
            self.base = base
            self.events = events
        }

        func read(_ id: ConnectionID) async throws -> Connection? { try await base.read(id) }

        func write(_ connection: Connection, expecting precondition: WritePrecondition) async throws -> Connection {
            try await base.write(connection, expecting: precondition)
        }

        func delete(_ id: ConnectionID) async throws { try await base.delete(id) }

        func list() async throws -> [ConnectionID] { try await base.list() }

        func acquireRefreshLease(for id: ConnectionID, timeout: Duration) async throws -> any RefreshLease {
            events.yield("lease")
            return try await base.acquireRefreshLease(for: id, timeout: timeout)
        }
    }

    @Test func signOutDuringARotatingRefreshLeavesNoRefreshTokenLive() async throws {
        let clock = ManualClock()
        let issuer = TestIssuer(dateSource: clock.dateSource)
        let (events, emit) = AsyncStream.makeStream(of: String.self)
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let store = LeaseProbeStore(MemoryStore(clock: clock), events: emit)
        // The issuer rotates at once; its answer reaches the session only when the test opens the gate.
        let refresher = StubRefresher(
            refresh: { request in
                let response = try await issuer.refresh(request)
                emit.yield("rotated")
                for await _ in gate { break }
                return response
            },
            revoke: { tokens, account in try await issuer.revoke(tokens, account: account) }
        )
        let session = Session(
            id: "dev",
            store: store,
            refresher: refresher,
            revoker: refresher,
            clock: clock,
            dateSource: clock.dateSource
        )
        try await session.signIn(account: SessionHarness.account, tokens: issuer.signInTokens(subject: "user-1"))

        let refresh = Task { try await session.forceRefresh() }
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next() == "lease")
        #expect(await iterator.next() == "rotated")
        let signOut = Task {
            try await session.signOut()
            emit.yield("signedOut")
        }
        // Sign-out either asks for the lease the refresh holds, or (without the lease) finishes at once.
        let next = await iterator.next()
        #expect(next == "lease" || next == "signedOut")
        open.yield()
        _ = try? await refresh.value
        try await signOut.value

        #expect(try await store.read("dev") == nil)
        #expect(try issuer.counters().refreshes == 1)
        #expect(try issuer.liveRefreshTokens() == 0)
        #expect(await session.status.kind == .notConnected)
    }
}

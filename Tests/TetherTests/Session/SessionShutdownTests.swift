import Foundation
import Testing
import Tether
import TetherTesting

/// A server that stops — its request tasks cancelled, then the process exiting — must not cut a refresh short
/// between the provider's rotation and the write.
struct SessionShutdownTests {
    @Test func aCancelledCallerNeverAbandonsARefreshMidWrite() async throws {
        let gate = WriteGate()
        let harness = SessionHarness(store: gate)
        try await harness.signIn()
        harness.clock.advance(by: .seconds(3600))
        gate.close()
        let caller = Task { try await harness.session.validAccessToken() }
        await gate.waitUntilAWriteWaits()
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        gate.open()

        try await harness.session.finishRefreshesInFlight()
        let stored = try #require(try await harness.store.read("dev"))
        #expect(try harness.issuer.accepts(try #require(stored.tokens.accessToken)))
        // Another process on the same store goes on with the stored tokens: no second refresh, no reuse.
        let other = harness.sibling()
        #expect(try await other.validAccessToken() == stored.tokens.accessToken)
        #expect(try harness.issuer.counters().refreshes == 1)
        #expect(try harness.issuer.counters().reuseDetections == 0)
    }

    @Test func finishRefreshesInFlightWaitsForTheRefreshAndItsWrite() async throws {
        let harness = SessionHarness()
        let (caller, _) = try await harness.callerWaitingOnAHeldRefresh()
        let finished = LockedBox(false)
        let drain = Task {
            try await harness.session.finishRefreshesInFlight()
            finished.mutate { $0 = true }
        }
        for _ in 0..<10_000 { await Task.yield() }
        #expect(!finished.value, "returned while the refresh was held")
        let writesBefore = harness.store.callCounts.writes
        harness.issuer.releaseRefreshes()
        try await drain.value
        #expect(harness.store.callCounts.writes == writesBefore + 1)
        let token = try await caller.value
        #expect(try await harness.store.read("dev")?.tokens.accessToken == token)
    }

    @Test func finishRefreshesInFlightReturnsAtOnceWhenIdle() async throws {
        let harness = SessionHarness()
        try await harness.signIn()
        try await harness.session.finishRefreshesInFlight()
        #expect(try harness.issuer.counters().refreshes == 0)
    }

    @Test func aCancelledDrainStopsWaitingButNotTheRefresh() async throws {
        let harness = SessionHarness()
        let (caller, _) = try await harness.callerWaitingOnAHeldRefresh()
        let drain = Task { try await harness.session.finishRefreshesInFlight() }
        drain.cancel()
        await #expect(throws: CancellationError.self) { try await drain.value }
        harness.issuer.releaseRefreshes()
        let token = try await caller.value
        #expect(try await harness.store.read("dev")?.tokens.accessToken == token)
    }
}

/// A memory store whose writes wait while the gate is closed.
final class WriteGate: CredentialStore {
    private let base = MemoryStore()
    private let state = LockedBox<(closed: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func close() { state.mutate { $0.closed = true } }

    func open() {
        let waiting = state.mutate { state -> [CheckedContinuation<Void, Never>] in
            state.closed = false
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Yields until a write is waiting at the closed gate.
    func waitUntilAWriteWaits() async {
        while state.value.waiting.isEmpty { await Task.yield() }
    }

    func read(_ id: ConnectionID) async throws -> Connection? { try await base.read(id) }

    func write(_ connection: Connection, expecting precondition: WritePrecondition) async throws -> Connection {
        await withCheckedContinuation { continuation in
            let wait = state.mutate { state -> Bool in
                guard state.closed else { return false }
                state.waiting.append(continuation)
                return true
            }
            if !wait { continuation.resume() }
        }
        return try await base.write(connection, expecting: precondition)
    }

    func delete(_ id: ConnectionID) async throws { try await base.delete(id) }

    func list() async throws -> [ConnectionID] { try await base.list() }

    func acquireRefreshLease(for id: ConnectionID, timeout: Duration) async throws -> any RefreshLease {
        try await base.acquireRefreshLease(for: id, timeout: timeout)
    }
}

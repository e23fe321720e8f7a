#if canImport(Observation)
import Observation
import Testing
import Tether
import TetherTesting

@MainActor
struct ConnectionModelTests {
    @Test func modelFollowsTheSessionStatus() async throws {
        let harness = SessionHarness()
        let model = ConnectionModel(session: harness.session)
        #expect(model.status == .restoring)
        try await harness.signIn()
        #expect(await waitUntil { model.status.kind == .connected })
        try await harness.session.signOut()
        #expect(await waitUntil { model.status == .notConnected })
        model.stop()
    }

    @Test func observationTrackingFiresOnStatusChange() async throws {
        let harness = SessionHarness()
        let model = ConnectionModel(session: harness.session)
        #expect(await waitUntil { model.status == .restoring || model.status == .notConnected })
        let changed = LockedBox(false)
        withObservationTracking {
            _ = model.status
        } onChange: {
            changed.mutate { $0 = true }
        }
        try await harness.signIn()
        #expect(await waitUntil { changed.value })
        model.stop()
    }

    private func waitUntil(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<100_000 {
            if condition() { return true }
            await Task.yield()
        }
        return condition()
    }
}
#endif

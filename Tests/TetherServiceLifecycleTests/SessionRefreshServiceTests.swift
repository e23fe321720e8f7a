import Foundation
import Logging
import ServiceLifecycle
import ServiceLifecycleTestKit
import Testing
import Tether
import TetherServiceLifecycle
import TetherTesting

struct SessionRefreshServiceTests {
    static let account = Account(providerID: "dev", subject: "user-1", displayIdentifier: "jane@example.com")
    static let silent = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test func gracefulShutdownWaitsForTheRefreshInFlightAndItsWrite() async throws {
        let clock = ManualClock()
        let issuer = TestIssuer(lifetime: .seconds(3600), dateSource: clock.dateSource)
        let store = InstrumentedStore(MemoryStore(clock: clock))
        let session = Session(
            id: "dev",
            store: store,
            refresher: issuer,
            clock: clock,
            dateSource: clock.dateSource,
            logger: Self.silent
        )
        try await session.signIn(account: Self.account, tokens: issuer.signInTokens(subject: "user-1"))
        clock.advance(by: .seconds(3600))
        issuer.holdRefreshes()
        let stream = await session.statusUpdates(bufferingPolicy: .unbounded)
        let caller = Task { try await session.validAccessToken() }
        for await status in stream where status.kind == .refreshing { break }

        let writesBefore = store.callCounts.writes
        let finished = Flag()
        try await testGracefulShutdown { trigger in
            let service = Task {
                try await SessionRefreshService(sessions: [session]).run()
                finished.set()
            }
            trigger.triggerGracefulShutdown()
            for _ in 0..<10_000 { await Task.yield() }
            #expect(!finished.isSet, "shutdown finished while a refresh was in flight")
            issuer.releaseRefreshes()
            try await service.value
        }
        #expect(finished.isSet)
        #expect(store.callCounts.writes == writesBefore + 1)
        let token = try await caller.value
        #expect(try await store.read("dev")?.tokens.accessToken == token)
        #expect(try issuer.counters().refreshes == 1)
    }

    @Test func aServiceGroupStopsAtOnceWhenNothingIsInFlight() async throws {
        let issuer = TestIssuer()
        let session = Session(id: "dev", store: MemoryStore(), refresher: issuer, logger: Self.silent)
        try await session.signIn(account: Self.account, tokens: issuer.signInTokens(subject: "user-1"))
        let group = ServiceGroup(
            services: [SessionRefreshService(sessions: { [session] })],
            logger: Self.silent
        )
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(try issuer.counters().refreshes == 0)
    }
}

final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

import Foundation
import Testing
import Tether
import TetherTesting

@testable import TetherCalendar

struct CalendarConnectionsTests {
    static let window = DateInterval(start: instant("2025-03-03T00:00:00Z"), end: instant("2025-03-10T00:00:00Z"))
    static let account = Account(providerID: "google", subject: "1", displayIdentifier: "ada@example.com")

    @Test func oneBrokenSourceNeverHidesTheOthers() async {
        let connections = CalendarConnections(
            sources: [
                StubSource.loading("google", ["g1", "g2"]),
                StubSource.failing(
                    "outlook",
                    kind: .microsoft,
                    with: CalendarError.api.with(message: "boom", httpStatus: 500)
                ),
                StubSource.failing(
                    "revoked",
                    with: .needsSignIn,
                    status: .needsSignIn(accountHint: Self.account, reason: "revoked")
                ),
            ],
            timeZone: utc,
            dateSource: .constant(instant("2025-03-03T08:00:00Z")),
            logger: silent
        )
        let result = await connections.fetch(window: Self.window)
        #expect(result.events.map(\.id) == ["g1", "g2"])
        #expect(result.sources.map(\.source) == ["google", "outlook", "revoked"])
        #expect(result.sources.map(\.served) == [.fresh, .nothing, .nothing])
        #expect(result.sources.map(\.status.kind) == [.connected, .apiError, .needsSignIn])
        #expect(result.sources[1].error?.httpStatus == 500)
        #expect(result.sources[1].failingSince == instant("2025-03-03T08:00:00Z"))
        #expect(result.sources[2].status.account == Self.account)
        #expect(!result.isComplete)
    }

    @Test func failingSinceIsTheFirstFailureAndClearsOnSuccess() async {
        let clock = ManualClock(startDate: instant("2025-03-03T08:00:00Z"))
        let healthy = LockedFlag()
        let source = StubSource(id: "google", kind: .google, status: .connected(account: nil)) { _, _ in
            guard healthy.value else { throw CalendarError.offline.with(message: "no network") }
            return CalendarSyncOutcome(state: StubSource.state([]))
        }
        let connections = CalendarConnections(
            sources: [source],
            timeZone: utc,
            dateSource: clock.dateSource,
            logger: silent
        )
        _ = await connections.fetch(window: Self.window)
        clock.advance(by: .seconds(600))
        let second = await connections.fetch(window: Self.window)
        #expect(second.sources[0].failingSince == instant("2025-03-03T08:00:00Z"))
        #expect(second.sources[0].status == .offline(since: instant("2025-03-03T08:00:00Z"), reason: "no network"))
        healthy.value = true
        let third = await connections.fetch(window: Self.window)
        #expect(third.sources[0].failingSince == nil)
        #expect(third.sources[0].lastSuccessfulSync == instant("2025-03-03T08:10:00Z"))
        #expect(third.sources[0].status.kind == .connected)
    }

    @Test func aStandInServesWhileTheSourceNeedsSignInAndTheResultSaysWhich() async {
        let apple = StubSource.loading("apple-calendar", kind: .apple, ["a1"])
        let connections = CalendarConnections(
            sources: [
                StubSource.failing(
                    "google",
                    with: .needsSignIn,
                    status: .needsSignIn(accountHint: nil, reason: "revoked")
                ),
                StubSource.loading("outlook", kind: .microsoft, ["o1"]),
            ],
            fallbacks: ["google": [apple]],
            timeZone: utc,
            logger: silent
        )
        let result = await connections.fetch(window: Self.window)
        let google = result.report(for: "google")
        #expect(google?.served == .standIn("apple-calendar"))
        #expect(google?.servedBy == "apple-calendar")
        #expect(google?.isStale == true)
        #expect(google?.status.kind == .needsSignIn)
        #expect(Set(result.events.map(\.id)) == ["a1", "o1"])
        #expect(result.events.first { $0.id == "a1" }?.source == "apple-calendar")
    }

    @Test func aStandInIsNotAskedWhileTheSourceLoads() async {
        let asked = LockedFlag()
        let apple = StubSource(id: "apple-calendar", kind: .apple, status: .connected(account: nil)) { _, _ in
            asked.value = true
            return CalendarSyncOutcome(state: StubSource.state([]))
        }
        let connections = CalendarConnections(
            sources: [StubSource.loading("google", ["g1"])],
            fallbacks: ["google": [apple]],
            logger: silent
        )
        let result = await connections.fetch(window: Self.window)
        #expect(result.sources[0].served == .fresh)
        #expect(!asked.value)
    }

    @Test func transientFailuresServeTheSourcesOwnLastEventsBeforeAStandIn() async {
        let healthy = LockedFlag(true)
        let google = StubSource(id: "google", kind: .google, status: .connected(account: nil)) { _, _ in
            guard healthy.value else { throw CalendarError.offline.with(message: "no network") }
            return CalendarSyncOutcome(
                state: StubSource.state([StubSource.event("g1", source: "google", at: "2025-03-04T09:00:00Z")])
            )
        }
        let connections = CalendarConnections(
            sources: [google],
            fallbacks: ["google": [StubSource.loading("apple-calendar", kind: .apple, ["a1"])]],
            timeZone: utc,
            logger: silent
        )
        _ = await connections.fetch(window: Self.window)
        healthy.value = false
        let result = await connections.fetch(window: Self.window)
        #expect(result.sources[0].served == .cache)
        #expect(result.events.map(\.id) == ["g1"])
        #expect(result.sources[0].status.kind == .offline)
    }

    @Test func aSyncReportsAsAFetchDoesWithoutListingTheEvents() async {
        let healthy = LockedFlag(true)
        let google = StubSource(id: "google", kind: .google, status: .connected(account: nil)) { _, _ in
            guard healthy.value else { throw CalendarError.offline.with(message: "no network") }
            return CalendarSyncOutcome(
                state: StubSource.state([
                    StubSource.event("g1", source: "google", at: "2025-03-04T09:00:00Z"),
                    StubSource.event("g2", source: "google", at: "2025-03-05T09:00:00Z"),
                    StubSource.event("later", source: "google", at: "2025-04-05T09:00:00Z"),
                ])
            )
        }
        let connections = CalendarConnections(
            sources: [google, StubSource.loading("outlook", kind: .microsoft, ["o1"])],
            fallbacks: ["outlook": [StubSource.loading("apple-calendar", kind: .apple, ["a1"])]],
            timeZone: utc,
            logger: silent
        )
        let fetched = await connections.fetch(window: Self.window)
        let synced = await connections.sync(window: Self.window)
        #expect(synced.map(\.source) == fetched.sources.map(\.source))
        #expect(synced.map(\.served) == [.fresh, .fresh])
        #expect(synced.map(\.eventCount) == [2, 1])
        #expect(synced.map(\.eventCount) == fetched.sources.map(\.eventCount))
        // Served from the cache, the events are counted all the same.
        healthy.value = false
        let offline = await connections.sync(window: Self.window)
        #expect(offline.map(\.served) == [.cache, .fresh])
        #expect(offline[0].eventCount == 2)
        #expect(offline[0].status.kind == .offline)
        let listed = await connections.fetch(window: Self.window)
        #expect(listed.sources.map(\.eventCount) == offline.map(\.eventCount))
    }

    @Test func eventsOutsideTheWindowAreNotServedAndSkipsAreReported() async {
        let skip = SkippedEvent(source: "google", calendarID: "main", eventID: "bad", reason: .unknownTimeZone)
        let google = StubSource(id: "google", kind: .google, status: .connected(account: nil)) { _, _ in
            CalendarSyncOutcome(
                state: StubSource.state([
                    StubSource.event("inside", source: "google", at: "2025-03-05T09:00:00Z"),
                    StubSource.event("before", source: "google", at: "2025-03-01T09:00:00Z"),
                ]),
                skipped: [skip]
            )
        }
        let result = await CalendarConnections(sources: [google], timeZone: utc, logger: silent).fetch(
            window: Self.window
        )
        #expect(result.events.map(\.id) == ["inside"])
        #expect(result.sources[0].eventCount == 1)
        #expect(result.sources[0].skipped == [skip])
    }

    @Test func sourcesAreFetchedConcurrently() async {
        // Each source waits until the other has started: sequential fetching would never finish.
        let started = Rendezvous(parties: 2)
        let make = { (id: CalendarSourceID) in
            StubSource(id: id, kind: .google, status: .connected(account: nil)) { _, _ in
                await started.arrive()
                return CalendarSyncOutcome(state: StubSource.state([]))
            }
        }
        let result = await CalendarConnections(sources: [make("a"), make("b")], logger: silent).fetch(
            window: Self.window
        )
        #expect(result.isComplete)
    }
}

extension CalendarConnectionsTests {
    @Test func fetchesRunOneAfterAnotherEachFromTheStateTheLastStored() async {
        let counter = SyncCounter()
        let source = StubSource(id: "google", kind: .google, status: .connected(account: nil)) { state, _ in
            let count = state.allEvents.count
            await counter.enter()
            await Task.yield()
            await counter.leave()
            let events = (0...count).map { StubSource.event("e\($0)", source: "google", at: "2025-03-04T09:00:00Z") }
            return CalendarSyncOutcome(state: StubSource.state(events))
        }
        let connections = CalendarConnections(sources: [source], timeZone: utc, logger: silent)
        async let first = connections.fetch(window: Self.window)
        async let second = connections.fetch(window: Self.window)
        let counts = await [first.events.count, second.events.count].sorted()
        #expect(counts == [1, 2])
        #expect(await counter.maximum == 1)
    }
}

actor SyncCounter {
    private var current = 0
    private(set) var maximum = 0
    func enter() {
        current += 1
        maximum = max(maximum, current)
    }
    func leave() { current -= 1 }
}

final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var state: Bool
    init(_ value: Bool = false) { state = value }
    var value: Bool {
        get { lock.withLock { state } }
        set { lock.withLock { state = newValue } }
    }
}

/// Lets `parties` tasks continue once all have arrived.
actor Rendezvous {
    private let parties: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []
    init(parties: Int) { self.parties = parties }
    func arrive() async {
        if waiting.count + 1 == parties {
            for continuation in waiting { continuation.resume() }
            waiting = []
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }
}

// `AppleCalendarSource` over the shim's simulated event store, where EventKit does not exist. Where it does, the
// source links the real EventKit, whose store these tests cannot fill (and the shim module is not linked).
#if !canImport(EventKit)
import EventKitShim
import Foundation
import Testing

@testable import TetherCalendar

struct AppleCalendarSourceTests {
    @Test func readsRunOffTheCallersActor() async throws {
        let simulator = makeSimulator(events: [event("a", "2025-03-03T09:00:00Z")])
        let caller = Caller()
        let readsOnCaller = Recorder<Bool>()
        simulator.beforeEachRead { readsOnCaller.append(caller.isCurrent) }
        let ids = try await withSource(over: simulator) { source in try await caller.syncAndList(source) }
        #expect(ids == ["a"])
        #expect(readsOnCaller.values == [false, false, false])
    }

    @Test func windowsLongerThanFourYearsAreReadInPieces() async throws {
        let simulator = makeSimulator(events: [
            event("early", "2020-06-01T09:00:00Z"),
            event("middle", "2025-06-01T09:00:00Z"),
            event("late", "2029-06-01T09:00:00Z"),
        ])
        let window = DateInterval(start: instant("2020-01-01T00:00:00Z"), end: instant("2030-01-01T00:00:00Z"))
        let outcome = try await withSource(over: simulator) { source in try await source.sync(window: window) }
        #expect(Set(outcome.state.allEvents.map(\.id)) == ["early", "middle", "late"])
        #expect(outcome.changed == 3)
        let fetches = simulator.fetches
        #expect(fetches.first?.start == window.start)
        #expect(fetches.last?.end == window.end)
        #expect(zip(fetches, fetches.dropFirst()).allSatisfy { $0.end == $1.start })
    }

    @Test func anEventAcrossTwoPiecesIsReadOnce() async throws {
        let pieces = EventKitQueryWindow.pieces(
            of: DateInterval(start: instant("2020-01-01T00:00:00Z"), end: instant("2030-01-01T00:00:00Z"))
        )
        let boundary = pieces[0].end
        var across = event("across", "2020-01-01T00:00:00Z")
        across.start = boundary.addingTimeInterval(-3600)
        across.end = boundary.addingTimeInterval(3600)
        let simulator = makeSimulator(events: [across])
        let window = DateInterval(start: instant("2020-01-01T00:00:00Z"), end: instant("2030-01-01T00:00:00Z"))
        let outcome = try await withSource(over: simulator) { source in try await source.sync(window: window) }
        #expect(outcome.state.allEvents.map(\.id) == ["across"])
        #expect(outcome.changed == 1)
    }

    @Test func queryPiecesNeverExceedFourCalendarYears() {
        var gregorian = Calendar(identifier: .gregorian)
        gregorian.timeZone = utc
        let window = DateInterval(start: instant("2001-03-01T00:00:00Z"), end: instant("2041-01-01T00:00:00Z"))
        let pieces = EventKitQueryWindow.pieces(of: window)
        for piece in pieces {
            let fourYears = gregorian.date(byAdding: .year, value: 4, to: piece.start) ?? piece.start
            #expect(piece.end <= fourYears)
        }
        #expect(pieces.first?.start == window.start && pieces.last?.end == window.end)
    }

    @Test(arguments: [Set<String>(), ["no-such-calendar"]])
    func aSelectionOfNoCalendarsReadsNoEvents(selection: Set<String>) async throws {
        let simulator = makeSimulator(events: [event("a", "2025-03-03T09:00:00Z")])
        let outcome = try await withSource(over: simulator) { source in
            let all = try await source.sync(window: march2025)
            return try await source.sync(from: all.state, window: march2025, calendars: selection)
        }
        #expect(outcome.state.allEvents.isEmpty)
        #expect(simulator.fetches.count == 1)
    }

    @Test(arguments: [
        (EKAuthorizationStatus.notDetermined, CalendarSourceStatus.notConnected),
        (.denied, .accessDenied(reason: "Calendar access was denied; allow it in Settings > Privacy > Calendars")),
        (
            .restricted,
            .accessDenied(
                reason: "Calendar access is not available on this device (restricted by Screen Time or management)"
            )
        ),
        (
            .writeOnly,
            .accessDenied(reason: "Calendar access allows adding events only, not reading them; allow full access")
        ),
        (.fullAccess, .connected(account: nil)),
    ])
    func theAuthorizationIsTheStatus(authorization: EKAuthorizationStatus, expected: CalendarSourceStatus) async {
        let simulator = makeSimulator(authorization: authorization)
        let (status, listed) = await withSource(over: simulator) { source in
            let connections = CalendarConnections(sources: [source], logger: silent)
            return (await source.accessStatus(), await connections.statuses().first?.status)
        }
        #expect(status == expected)
        #expect(listed == expected)
    }

    @Test(arguments: [EKAuthorizationStatus.notDetermined, .denied, .restricted, .writeOnly])
    func withoutFullAccessASyncThrowsWithoutReading(authorization: EKAuthorizationStatus) async {
        let simulator = makeSimulator(authorization: authorization, events: [event("a", "2025-03-03T09:00:00Z")])
        await withSource(over: simulator) { source in
            await #expect(throws: CalendarError.accessDenied) { try await source.sync(window: march2025) }
            await #expect(throws: CalendarError.accessDenied) { try await source.calendars() }
        }
        #expect(simulator.fetches.isEmpty)
    }

    @Test func theDeprecatedAuthorizedIsFullAccess() {
        #expect(EventKitAuthorization(eventKitRawValue: EKAuthorizationStatus.authorized.rawValue) == .fullAccess)
    }

    @Test func aChangeInTheStoreMakesTheNextSyncReadAgain() async throws {
        let simulator = makeSimulator(events: [event("a", "2025-03-03T09:00:00Z")])
        try await withSource(over: simulator) { source in
            let first = try await source.sync(window: march2025)
            let unchanged = try await source.sync(from: first.state, window: march2025, calendars: nil)
            #expect(unchanged.state == first.state)
            #expect(unchanged.modes == ["home": .incremental])
            #expect(simulator.fetches.count == 1)

            simulator.change { $0.events.append(event("b", "2025-03-04T09:00:00Z")) }
            let changed = try await source.sync(from: unchanged.state, window: march2025, calendars: nil)
            #expect(Set(changed.state.allEvents.map(\.id)) == ["a", "b"])
            #expect(changed.modes == ["home": .full])
            #expect(simulator.fetches.count == 2)
        }
    }

    @Test func aStateFromAnotherSourceOrAnotherWindowIsReadAgain() async throws {
        let simulator = makeSimulator(events: [event("a", "2025-03-03T09:00:00Z")])
        let earlier = try await withSource(over: simulator) { source in try await source.sync(window: march2025) }
        try await withSource(over: simulator) { source in
            _ = try await source.sync(from: earlier.state, window: march2025, calendars: nil)
            let april = DateInterval(start: march2025.end, duration: 30 * 86_400)
            _ = try await source.sync(from: earlier.state, window: april, calendars: nil)
        }
        #expect(simulator.fetches.count == 3)
    }
}

/// A caller on its own queue, like a UI actor: EventKit's synchronous reads must not run there.
private actor Caller {
    private static let key = DispatchSpecificKey<Bool>()
    private let executor: QueueExecutor

    init() {
        let queue = DispatchQueue(label: "caller")
        queue.setSpecific(key: Self.key, value: true)
        executor = QueueExecutor(queue: queue)
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Whether the current thread runs the caller's queue.
    nonisolated var isCurrent: Bool { DispatchQueue.getSpecific(key: Self.key) == true }

    func syncAndList(_ source: AppleCalendarSource) async throws -> [String] {
        precondition(isCurrent)
        _ = try await source.calendars()
        return try await source.sync(window: march2025).state.allEvents.map(\.id)
    }
}

private final class QueueExecutor: SerialExecutor {
    let queue: DispatchQueue

    init(queue: DispatchQueue) { self.queue = queue }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

private final class Recorder<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [Value] = []

    var values: [Value] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    func append(_ value: Value) {
        lock.lock()
        defer { lock.unlock() }
        recorded.append(value)
    }
}

private let march2025 = DateInterval(start: instant("2025-03-01T00:00:00Z"), end: instant("2025-04-01T00:00:00Z"))

private func makeSimulator(
    authorization: EKAuthorizationStatus = .fullAccess,
    events: [EventKitSimulator.Event] = []
) -> EventKitSimulator {
    EventKitSimulator(
        authorization: authorization,
        calendars: [EventKitSimulator.Calendar(identifier: "home", title: "Home")],
        events: events,
        defaultCalendarIdentifier: "home"
    )
}

private func event(_ id: String, _ start: String) -> EventKitSimulator.Event {
    EventKitSimulator.Event(
        identifier: id,
        calendarIdentifier: "home",
        title: id,
        start: instant(start),
        end: instant(start).addingTimeInterval(3600)
    )
}

/// Runs `body` with a source over `simulator`, which `EKEventStore.authorizationStatus(for:)` reads meanwhile.
private func withSource<T>(
    over simulator: EventKitSimulator,
    _ body: (AppleCalendarSource) async throws -> T
) async rethrows -> T {
    try await EventKitSimulator.$current.withValue(simulator) {
        try await body(AppleCalendarSource(eventStore: EKEventStore(simulator: simulator), timeZone: { utc }))
    }
}
#endif

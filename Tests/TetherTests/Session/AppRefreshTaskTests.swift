#if !canImport(BackgroundTasks)
import BackgroundTasksShim
import Foundation
import Testing
import Tether
import TetherTesting

/// `AppRefreshTask` over the BackgroundTasks shim's scheduler: launched, expired and completed as the system
/// does, with real sessions on a manual clock.
struct AppRefreshTaskTests {
    let identifier = "com.example.app.refresh"

    @Test func aLaunchRefreshesRunsTheAppsWorkSchedulesTheNextAndCompletes() async throws {
        let harness = SessionHarness()
        try await harness.signIn()
        harness.clock.advance(by: .seconds(50 * 60))
        let scheduler = BGTaskScheduler()
        let reports = Reports()
        let task = AppRefreshTask(identifier: identifier) {
            BackgroundRefresh(sessions: [harness.session], clock: harness.clock, dateSource: harness.clock.dateSource)
        } afterwards: { report in
            await reports.append(report)
        }
        #expect(task.register(with: scheduler))
        try task.schedule(earliest: harness.clock.date.addingTimeInterval(900), with: scheduler)
        #expect(scheduler.pendingRequest(identifier)?.earliestBeginDate == harness.clock.date.addingTimeInterval(900))

        let launched = try #require(scheduler.launch(identifier))
        #expect(await launched.waitForCompletion())
        #expect(await reports.all.map(\.outcomes) == [["dev": .refreshed]])
        #expect(try harness.issuer.counters().refreshes == 1)
        // The next launch: the new token's expiry less the 30-minute lead.
        let next = try #require(scheduler.pendingRequest(identifier))
        #expect(next.earliestBeginDate == harness.clock.date.addingTimeInterval(1800))
    }

    @Test func whenTheSystemExpiresTheTaskItCompletesAtOnceAndTheRefreshIsStillStored() async throws {
        let harness = SessionHarness()
        try await harness.signIn()
        harness.clock.advance(by: .seconds(3600))
        harness.issuer.holdRefreshes()
        let scheduler = BGTaskScheduler()
        let task = AppRefreshTask(identifier: identifier) {
            BackgroundRefresh(sessions: [harness.session], clock: harness.clock, dateSource: harness.clock.dateSource)
        }
        #expect(task.register(with: scheduler))
        let launched = try #require(scheduler.launch(identifier))
        #expect(await harness.clock.waitForSleepers(1))
        #expect(launched.completion == nil)

        launched.expire()

        #expect(await launched.waitForCompletion() == false)
        let next = try #require(scheduler.pendingRequest(identifier), "no next launch was scheduled")
        #expect(next.earliestBeginDate == harness.clock.date.addingTimeInterval(15 * 60))
        harness.issuer.releaseRefreshes()
        try await harness.session.finishRefreshesInFlight()
        let stored = try #require(try await harness.store.read("dev"))
        #expect(try harness.issuer.accepts(try #require(stored.tokens.accessToken)))
        #expect(try harness.issuer.counters().refreshes == 1)
    }

    @Test func anIdentifierTheAppDoesNotPermitIsNotRegisteredAndCannotBeScheduled() throws {
        let scheduler = BGTaskScheduler()
        scheduler.permit(["com.example.app.other"])
        let task = AppRefreshTask(identifier: identifier) { BackgroundRefresh(sessions: []) }
        #expect(!task.register(with: scheduler))
        #expect(throws: BGTaskScheduler.Error(.notPermitted)) {
            try task.schedule(earliest: Date(), with: scheduler)
        }
    }

    @Test func backgroundAppRefreshTurnedOffIsReportedWhenScheduling() throws {
        let scheduler = BGTaskScheduler()
        scheduler.setAvailable(false)
        let task = AppRefreshTask(identifier: identifier) { BackgroundRefresh(sessions: []) }
        #expect(task.register(with: scheduler))
        #expect(throws: BGTaskScheduler.Error(.unavailable)) {
            try task.schedule(earliest: Date(), with: scheduler)
        }
    }
}

private actor Reports {
    var all: [BackgroundRefresh.Report] = []
    func append(_ report: BackgroundRefresh.Report) { all.append(report) }
}
#endif

public import Foundation
public import Logging

#if canImport(BackgroundTasks)
public import BackgroundTasks
#else
public import BackgroundTasksShim
#endif

/// Keeps connections fresh (and whatever else the app adds, such as a calendar sync) from a `BGAppRefreshTask`.
///
/// Register it before the app finishes launching, with the identifier listed in the app's
/// `BGTaskSchedulerPermittedIdentifiers` and the "Background fetch" mode on; schedule it when the app moves to
/// the background:
///
/// ```swift
/// let keepFresh = AppRefreshTask(identifier: "com.example.app.refresh") {
///     BackgroundRefresh(sessions: [session])
/// } afterwards: { report in
///     _ = await calendars.sync(window: nextWeek)
/// }
/// keepFresh.register()                           // in application(_:didFinishLaunchingWithOptions:)
/// try keepFresh.schedule(earliest: .now + 900)   // when the scene enters the background
/// ```
///
/// To keep grants alive that end of disuse (Microsoft's 90 days; see ``Session/keepAlive(margin:)``), give the run a
/// ``BackgroundRefresh/Configuration/keepAliveMargin`` of a few days, longer than iOS leaves between launches; its
/// next launch is then also planned around the inactivity deadline.
///
/// Each launch runs one ``BackgroundRefresh`` within ``budget``, then `afterwards`, schedules the next launch at
/// the report's ``BackgroundRefresh/Report/nextRun`` and completes the task. When the system expires the task,
/// the run is cancelled: it starts nothing new, a refresh already sent is finished and stored by its session,
/// and the task is completed at once (as unsuccessful), with the next launch scheduled.
///
/// Compiled and tested here against `BackgroundTasksShim`, written from Apple's documentation; the real
/// framework is not linked here. iOS 13, tvOS 13, visionOS 1 and Mac Catalyst 13.1; not macOS or watchOS.
@available(iOS 13, tvOS 13, visionOS 1, macCatalyst 13.1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
public struct AppRefreshTask: Sendable {
    /// The task's identifier, as listed in `BGTaskSchedulerPermittedIdentifiers`.
    public let identifier: String
    /// How long one launch may take. Default: 25 seconds (the system gives an app-refresh task about 30).
    public let budget: Duration

    private let makeRefresh: @Sendable () async -> BackgroundRefresh
    private let afterwards: @Sendable (BackgroundRefresh.Report) async -> Void
    private let logger: Logger

    /// Creates the task.
    /// - Parameters:
    ///   - identifier: The identifier in `BGTaskSchedulerPermittedIdentifiers`.
    ///   - budget: How long one launch may take.
    ///   - logger: Receives the outcome of each launch, without secrets.
    ///   - refresh: Returns the run over the app's sessions (called on each launch).
    ///   - afterwards: Work after the refreshes, such as a calendar sync; it should stop when its task is
    ///     cancelled.
    public init(
        identifier: String,
        budget: Duration = .seconds(25),
        logger: Logger = .current,
        refresh: @escaping @Sendable () async -> BackgroundRefresh,
        afterwards: @escaping @Sendable (BackgroundRefresh.Report) async -> Void = { _ in }
    ) {
        self.identifier = identifier
        self.budget = budget
        self.logger = logger
        self.makeRefresh = refresh
        self.afterwards = afterwards
    }

    /// Registers the launch handler. Call it before the app finishes launching.
    /// - Parameter scheduler: The scheduler; `BGTaskScheduler.shared` in an app.
    /// - Returns: Whether the handler was registered (`false` when the identifier is not permitted or is
    ///   registered already).
    @discardableResult
    public func register(with scheduler: BGTaskScheduler = .shared) -> Bool {
        let registered = scheduler.register(forTaskWithIdentifier: identifier, using: nil) { task in
            self.handle(LaunchedTask(task), scheduler: SchedulerReference(scheduler))
        }
        if !registered {
            logger.error(
                "The background refresh task could not be registered: is it in BGTaskSchedulerPermittedIdentifiers?",
                metadata: ["task": "\(identifier)"]
            )
        }
        return registered
    }

    /// Asks for a launch no earlier than `date` (replacing a pending request).
    /// - Parameters:
    ///   - date: The earliest launch; the system decides the actual time.
    ///   - scheduler: The scheduler; `BGTaskScheduler.shared` in an app.
    /// - Throws: `BGTaskScheduler.Error` (`unavailable` when Background App Refresh is off, `notPermitted` when
    ///   the identifier is not permitted).
    public func schedule(earliest date: Date, with scheduler: BGTaskScheduler = .shared) throws {
        let request = BGAppRefreshTaskRequest(identifier: identifier)
        request.earliestBeginDate = date
        try scheduler.submit(request)
    }

    private func handle(_ launched: LaunchedTask, scheduler: SchedulerReference) {
        let budget = self.budget
        let makeRefresh = self.makeRefresh
        let afterwards = self.afterwards
        let work = Task {
            let report = await makeRefresh().run(budget: budget)
            await afterwards(report)
            return report
        }
        launched.task.expirationHandler = { work.cancel() }
        Task {
            let report = await work.value
            do {
                try schedule(earliest: report.nextRun, with: scheduler.scheduler)
            } catch {
                logger.warning(
                    "The next background refresh could not be scheduled",
                    metadata: ["task": "\(identifier)", "error": "\(error)"]
                )
            }
            logger.info(
                "Background refresh done",
                metadata: [
                    "task": "\(identifier)", "succeeded": "\(report.succeeded)",
                    "cancelled": "\(report.wasCancelled)", "next": "\(report.nextRun)",
                ]
            )
            launched.task.setTaskCompleted(success: report.succeeded)
        }
    }
}

/// A launched task handed to the tasks that finish it. Apple documents `expirationHandler` and
/// `setTaskCompleted(success:)` for use from any thread.
@available(iOS 13, tvOS 13, visionOS 1, macCatalyst 13.1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
private struct LaunchedTask: @unchecked Sendable {
    let task: BGTask
    init(_ task: BGTask) { self.task = task }
}

/// The scheduler, handed to the task that schedules the next launch; `submit(_:)` may be called from any thread.
@available(iOS 13, tvOS 13, visionOS 1, macCatalyst 13.1, *)
@available(macOS, unavailable)
@available(watchOS, unavailable)
private struct SchedulerReference: @unchecked Sendable {
    let scheduler: BGTaskScheduler
    init(_ scheduler: BGTaskScheduler) { self.scheduler = scheduler }
}

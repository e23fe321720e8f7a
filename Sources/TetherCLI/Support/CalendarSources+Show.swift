import ArgumentParser
import Foundation
import TetherCommandSupport

extension CalendarSources {
    /// What `tether calendar events` and `flights` do around their output: fetch every source for the window of
    /// `window`, let `show` print, name on standard error each source that did not load, and exit with the
    /// fetch's status.
    static func fetchAndShow(
        _ global: GlobalOptions,
        window: CalendarWindowOptions,
        show: (Fetch, DateInterval, Workspace) throws -> Void
    ) async throws {
        try await fetchAndShow(global, interval: { _ in try window.window() }, show: show)
    }

    /// ``fetchAndShow(_:window:show:)`` for the interval `interval` gives, once the sources are known.
    static func fetchAndShow(
        _ global: GlobalOptions,
        interval: (CalendarSources) throws -> DateInterval,
        show: (Fetch, DateInterval, Workspace) throws -> Void
    ) async throws {
        let workspace = try Workspace(global, createsHome: false)
        let sources = try CalendarSources(workspace: workspace)
        let interval = try interval(sources)
        try sources.requireAny()
        let fetch = await sources.fetch(window: interval)
        try show(fetch, interval, workspace)
        sources.reportProblems(fetch.rows)
        sources.reportSkipped(fetch.rows)
        if fetch.status != .success { throw ExitCode(fetch.status.rawValue) }
    }
}

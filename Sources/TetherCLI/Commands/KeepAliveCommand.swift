import ArgumentParser
import Foundation
import Tether
import TetherCommandSupport

/// `tether keep-alive [NAME…]`: refreshes the grants that would otherwise end of disuse.
struct KeepAliveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keep-alive",
        abstract: "Refresh grants whose inactivity deadline is near, so that they do not end of disuse.",
        discussion: """
            For a timer (systemd, launchd, cron), daily or weekly. Microsoft ends a grant unused for 90 days and \
            Google one unused for 6 months; what counts as use is a refresh. Every connection (or each NAME) \
            whose inactivity deadline is within --margin is refreshed, through the same path as `tether token` \
            (one refresh per connection however many processes ask); the others are left alone. A grant with only \
            an absolute end (GitHub's 6 months, Google's 7 days for apps in Testing) is never refreshed: no \
            refresh extends it, and the line says so.

            The rules come from the connection's preset, or from `tether login … --grant-inactivity` for any \
            other provider. One line per connection on standard output: refreshed, not due, not renewable or no \
            known end, with the grant's end and why.

            Exits 0 when every connection was refreshed or needed nothing, 3 when one needs sign-in, 4 when the \
            provider could not be reached, like `tether status`. See docs/keep-alive.md for the systemd and \
            launchd units.

            EXAMPLES
              tether keep-alive
              tether keep-alive work --margin 14d
            """
    )

    @Argument(help: "Only these connections.")
    var connections: [String] = []

    @Option(
        help: ArgumentHelp(
            "Refresh a grant whose inactivity deadline is within this (default: 7d; longer than the time between runs).",
            valueName: "duration"
        )
    )
    var margin: String = "7d"

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let margin = Duration.seconds(try GrantLifetimeSetting.seconds(margin, option: "--margin"))
        let workspace = try Workspace(global, createsHome: false)
        let profiles = try workspace.profiles.load()
        let known = Set(profiles.map(\.name))
        if let unknown = connections.first(where: { !known.contains($0) }) {
            throw CLIFailure(
                .needsSignIn,
                "There is no connection named '\(UntrustedText.forTerminal(unknown))'",
                fix: NameSuggestion.didYouMean(unknown, among: Array(known)) + "Run `tether status` to list them"
            )
        }
        let chosen = connections.isEmpty ? profiles : profiles.filter { connections.contains($0.name) }
        var failures: [CLIFailure] = []
        for profile in chosen {
            do {
                let line = try await keepAlive(profile, margin: margin, workspace: workspace)
                workspace.terminal.out(UntrustedText.forTerminal("\(profile.name): \(line)"))
            } catch {
                let failure = CLIFailure.from(error, connection: profile.name)
                workspace.statusFile.record(failure.message, for: profile.name)
                workspace.terminal.out(UntrustedText.forTerminal("\(profile.name): failed: \(failure.message)"))
                failures.append(failure)
            }
        }
        // The most pressing failure decides the exit status: sign-in needed, then unavailable, then the rest.
        let order: [ExitStatus] = [.needsSignIn, .unavailable, .configuration, .failure]
        if let worst = order.first(where: { status in failures.contains { $0.status == status } }),
            let failure = failures.first(where: { $0.status == worst })
        {
            throw failure
        }
    }

    /// Keeps one connection alive if its inactivity deadline is within `margin`; returns what was done, in words.
    func keepAlive(_ profile: Profile, margin: Duration, workspace: Workspace) async throws -> String {
        let session = try await workspace.session(for: profile)
        guard try await session.connection() != nil else { throw SessionError.notConnected }
        guard let end = await session.grantEnd else {
            return "no known end (no inactivity rule for this provider; see --grant-inactivity of tether login)"
        }
        guard end.isRenewable else {
            return "not renewable, \(end); keep-alive never extends an absolute lifetime"
        }
        guard try await session.keepAlive(margin: margin) else {
            return "not due, \(end)"
        }
        workspace.statusFile.clear(profile.name)
        let renewed = await session.grantEnd.map { "\($0)" } ?? "no known end"
        return "refreshed, \(renewed)"
    }
}

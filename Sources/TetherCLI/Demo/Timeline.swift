import Foundation
import Tether
import TetherCommandSupport

/// Prints the demo's timeline: steps, status changes with the time since the start, and notes.
final class Timeline: Sendable {
    private let start = ContinuousClock.now
    private let terminal: Terminal
    private let style: Style

    init(terminal: Terminal, style: Style) {
        self.terminal = terminal
        self.style = style
    }

    private var elapsed: String {
        let duration = ContinuousClock.now - start
        let millis = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return style.dim(String(format: "%6.2fs", Double(millis) / 1000))
    }

    func step(_ number: Int, _ title: String) { terminal.out("\n\(elapsed)  \(style.bold("\(number). \(title)"))") }
    func say(_ text: String) { terminal.out("\(elapsed)     \(text)") }
    func fail(_ title: String, _ reason: String) { terminal.out("\(elapsed)  \(style.red("✘ \(title): \(reason)"))") }
    func done() { terminal.out("\n\(elapsed)  \(style.green("✔ Every step behaved as expected."))") }

    /// Prints each status change of `session` until the task is cancelled.
    func watch(_ session: Session) async -> Task<Void, Never> {
        let stream = await session.statusUpdates(bufferingPolicy: .unbounded)
        return Task {
            for await status in stream { self.terminal.out("\(self.elapsed)     status → \(self.render(status))") }
        }
    }

    /// A status as a settings screen would show it. Accounts and messages come from the provider: made safe for
    /// the terminal (``Tether/UntrustedText/forTerminal(_:)``).
    func render(_ status: ConnectionStatus) -> String {
        func seconds(until date: Date) -> String { String(format: "%.1f s", max(0, date.timeIntervalSinceNow)) }
        func shown(_ account: Account) -> String {
            UntrustedText.forTerminal(account.maskedDisplayIdentifier ?? account.providerID)
        }
        switch status {
        case .connected(let account, let until):
            return style.green("connected")
                + " as \(shown(account))"
                + (until.map { ", token valid for \(seconds(until: $0))" } ?? "")
        case .refreshing:
            return style.yellow("refreshing")
        case .offline(_, let next, let error):
            return style.yellow("offline") + " (\(UntrustedText.forTerminal(error.message)))"
                + (next.map { ", next attempt in \(seconds(until: $0))" } ?? "")
        case .needsSignIn(let reason, let hint):
            return style.red("needs sign-in") + ": \(UntrustedText.forTerminal(reason.message))"
                + (hint.map { " (hint: \(shown($0)))" } ?? "")
        case .notConnected:
            return "not connected"
        default:
            return UntrustedText.forTerminal("\(status)")
        }
    }
}

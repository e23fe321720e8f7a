import ArgumentParser
import Foundation
import Tether
import TetherCalendar
import TetherCommandSupport

struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Sign out: revoke the tokens (best-effort) and delete them.",
        discussion: """
            Revokes the refresh and access tokens at the provider when it has a revocation endpoint (a provider \
            that cannot be reached or has no revocation endpoint does not stop the sign-out: tether then says that \
            the tokens were deleted here but not revoked, and why, and still exits 0), then deletes the connection's record — tokens and \
            account — from the vault. The connection's settings stay in connections.json, so \
            `tether login NAME` signs in again with them; --forget removes them too, with the connection's cached \
            calendar events. Running it twice is fine; a name with neither settings nor a record (mistyped, or \
            forgotten before) is an error that exits 3 and changes nothing.

            EXAMPLES
              tether logout
              tether logout calendar
              tether logout --all --forget
            """
    )

    @Argument(help: "The connection; default: TETHER_CONNECTION, or the only one there is.")
    var connection: String?

    @Flag(help: "Sign out of every connection.")
    var all = false

    @Flag(help: "Also remove the connection's settings from connections.json, and its cached calendar events.")
    var forget = false

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if all, connection != nil { throw ValidationError("Give a connection or --all, not both") }
    }

    func run() async throws {
        let workspace = try Workspace(global, createsHome: false)
        var names: [String]
        if all {
            var known = Set(try workspace.profiles.names())
            if let stored = try? await workspace.store.list() { known.formUnion(stored.map(\.rawValue)) }
            names = known.sorted()
        } else {
            do {
                names = [try workspace.resolveName(connection)]
            } catch let failure as CLIFailure where failure.status == .needsSignIn {
                workspace.terminal.err("Nothing to sign out of.")
                return
            }
        }
        var failures: [CLIFailure] = []
        for name in names {
            do {
                try await signOut(name, workspace: workspace)
            } catch {
                let failure = CLIFailure.from(error, connection: name)
                workspace.terminal.err(UntrustedText.forTerminal("'\(name)': \(failure.description)"))
                failures.append(failure)
            }
        }
        if all { await Self.removeOrphanedEntries(workspace) }
        if let first = failures.first { throw ExitCode(first.status.rawValue) }
    }

    /// Entries of the state files for names that have neither settings nor a record — a connection removed by hand,
    /// or a first sign-in that failed in an earlier version — go with `--all`. Nothing goes while the store cannot
    /// be listed: then which names are known is not.
    static func removeOrphanedEntries(_ workspace: Workspace) async {
        guard let stored = try? await workspace.store.list(), let settings = try? workspace.profiles.names() else {
            return
        }
        let known = Set(settings).union(stored.map(\.rawValue))
        workspace.statusFile.file.removeAll(except: known)
        CalendarSources.statusFile(home: workspace.home).removeAll(except: known)
        RejectedTokens(workspace: workspace).file.removeAll(except: known)
    }

    func signOut(_ name: String, workspace: Workspace) async throws {
        let id = ConnectionID(name)
        let revocation = RevocationRecorder()
        if let profile = try workspace.profiles.profile(named: name) {
            // A damaged record cannot be revoked, but it can be deleted: that is what logout is for.
            let session: Session
            do {
                session = try await workspace.session(for: profile, revocation: revocation)
                try await session.signOut()
            } catch let failure as CLIFailure where failure.status == .failure {
                try await workspace.store.delete(id)
            }
        } else {
            // Neither settings nor a record: a mistyped name, or one forgotten before. Saying "signed out" would
            // leave the person believing a connection they still have is gone.
            let record: Bool
            do { record = try await workspace.store.read(id) != nil } catch { record = true }
            guard record else {
                let known = (try? workspace.profiles.names()) ?? []
                throw CLIFailure(
                    .needsSignIn,
                    "There is no connection named '\(name)'; nothing was signed out",
                    fix: known.isEmpty
                        ? "There are no connections"
                        : NameSuggestion.didYouMean(name, among: known)
                            + "The connections are \(known.joined(separator: ", ")); `tether status` lists them"
                )
            }
            try await workspace.store.delete(id)
        }
        workspace.statusFile.clear(name)
        // The fingerprint of a token that is gone tells the next helper nothing.
        RejectedTokens(workspace: workspace).clear(name)
        if forget {
            try workspace.profiles.remove(named: name)
            // Cached events are personal data: a forgotten connection leaves none behind.
            try? CalendarCache(vault: workspace.vault).remove(CalendarSourceID(name))
            CalendarSources.statusFile(home: workspace.home).remove(name)
        }
        workspace.terminal.err(await revocation.summary(for: name, forget: forget))
    }
}

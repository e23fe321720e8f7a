import ArgumentParser
import Foundation
import Tether
import TetherCommandSupport
import TetherOAuth

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show every connection: provider, account, state, expiry, last refresh, last error.",
        discussion: """
            Reads the vault (or the store TETHER_STORE names); nothing is sent to a provider unless --check is given, which refreshes stale \
            tokens the way `tether token` would and so shows whether each grant still stands.

            States: connected, refreshing, offline, storage-unavailable, needs-sign-in, not-connected, \
            misconfigured. Accounts are masked (j***@example.com).

            --json prints an array of objects with the keys name, provider, account, state, expiresAt, \
            lastRefresh (ISO 8601, or null), lastError (or null), detail (or null), store (the vault's folder, or \
            the PostgreSQL URL without its password), grantEndsAt (ISO 8601, or null), grantEnd (inactivity, \
            absolute, or null), grantNote (why, or null), lastUsed (the last refresh or the sign-in, ISO 8601, or \
            null) and expiresSoon (true when the grant ends within --expiring-within), and nothing else on \
            standard output.

            The grant's end comes from the provider's refresh_token_expires_in and the preset's rules (Microsoft \
            ends a grant unused for 90 days, Google one unused for 6 months) or the connection's own \
            (--grant-inactivity, --grant-lifetime of `tether login`). An inactivity deadline is kept away by \
            `tether keep-alive`; an absolute end only by signing in again.

            When the vault's key is in vault.key beside the records (no TETHER_VAULT_KEY, systemd credential or \
            Secret Service), a last line says so and how to move it out (on standard error with --json).

            EXAMPLES
              tether status
              tether status --check
              tether status --json | jq -r '.[] | select(.state != "connected") | .name'
              tether status --json --expiring-within 30d |
                  jq -r '.[] | select(.expiresSoon) | .name'
            """
    )

    @Argument(help: "Only this connection.")
    var connection: String?

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    @Flag(help: "Refresh expired tokens to find out whether each connection still works.")
    var check = false

    @Option(
        name: .customLong("expiring-within"),
        help: ArgumentHelp("A grant ending within this counts as expiring soon (default: 14d).", valueName: "duration")
    )
    var expiringWithin: String?

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let threshold = try expiringWithin.map { try GrantLifetimeSetting.seconds($0, option: "--expiring-within") }
        // Reading creates nothing: a missing TETHER_HOME is no connections.
        let workspace = try Workspace(global, createsHome: false)
        let (rows, unreadable) = try await Self.rows(
            workspace: workspace,
            only: connection,
            check: check,
            threshold: threshold
        )
        let store = workspace.location.displayName(home: workspace.home)
        if let unreadable { workspace.terminal.err("tether: \(UntrustedText.forTerminal(unreadable.description))") }
        let keyNotice = Self.keyNotice(workspace.vault)
        if json {
            try Self.printJSON(rows, workspace.terminal)
            if let keyNotice { workspace.terminal.err(keyNotice) }
        } else if rows.isEmpty {
            workspace.terminal.err(
                "No connections in \(store). Sign in with `tether login PROVIDER` (see `tether providers`)."
            )
            if let keyNotice { workspace.terminal.err(keyNotice) }
        } else {
            let style = Style(enabled: workspace.terminal.colors(onStandardError: false))
            let header = [
                "NAME", "PROVIDER", "ACCOUNT", "STATE", "EXPIRES", "GRANT ENDS", "LAST REFRESH", "LAST ERROR",
            ]
            var table = [Format.cells(header, style: style.bold)]
            table += rows.map { $0.cells(style: style) }
            for line in Format.table(table) { workspace.terminal.out(line) }
            for row in rows { if let line = row.endingSoonLine { workspace.terminal.out(line) } }
            workspace.terminal.out("Store: \(store)")
            if let keyNotice { workspace.terminal.out(keyNotice) }
        }
    }

    /// Every connection's row, as `tether status` shows them (`tether watch` compares them): the connections with
    /// settings and those in the store, or only `connection`. A store that cannot be listed is returned beside the
    /// rows of the settings. `threshold` (seconds) replaces the default of "ends soon".
    static func rows(
        workspace: Workspace,
        only connection: String?,
        check: Bool,
        threshold: Int64? = nil
    ) async throws -> (rows: [StatusRow], unreadable: CLIFailure?) {
        // connections.json is read once for all rows.
        // A profile that fails its MAC check is one refused row, not a failed listing.
        let profiles = Dictionary(try workspace.profiles.loadEach().map { ($0.name, $0.profile) }) { first, _ in
            first
        }
        var names = Set(profiles.keys)
        // Records without settings (written by an app through the library) are shown too.
        var unreadable: CLIFailure?
        do {
            names.formUnion(try await workspace.store.list().map(\.rawValue))
        } catch {
            unreadable = CLIFailure.from(error)
        }
        // A store that cannot be listed and no settings to show rows for: say so, rather than "no connections".
        if let unreadable, names.isEmpty { throw unreadable }
        if let connection {
            guard names.contains(connection) else {
                throw CLIFailure(
                    .needsSignIn,
                    "There is no connection named '\(connection)'",
                    fix: NameSuggestion.didYouMean(connection, among: Array(names)) + "Run `tether status` to list them"
                )
            }
            names = [connection]
        }
        let errors = workspace.statusFile.load()
        let store = workspace.location.displayName(home: workspace.home)
        var rows: [StatusRow] = []
        for name in names.sorted() {
            var row = await row(
                name,
                profile: profiles[name],
                workspace: workspace,
                lastError: errors[name],
                check: check
            )
            row.store = store
            if let threshold { row.applyThreshold(.seconds(threshold), now: Date()) }
            rows.append(row)
        }
        return (rows, unreadable)
    }

    /// One line when the vault's key is in the `vault.key` file beside the records, saying why and how to move it
    /// out; `nil` when it is kept elsewhere.
    static func keyNotice(_ vault: VaultStore) -> String? {
        guard vault.keySource?.isBesideRecords == true else { return nil }
        let path = vault.directory.appendingPathComponent("vault.key").path
        let why = vault.keyringNote.map { " (\($0))" } ?? ""
        return "Key: \(path), beside the records\(why). To move it out, run tether in a session with an unlocked "
            + "Secret Service keyring (the next sign-in or refresh moves it), or give the key as TETHER_VAULT_KEY or "
            + "the systemd credential \(VaultStore.credentialName); see docs/security.md"
    }

    static func row(
        _ name: String,
        profile checked: Result<Profile, ProfileBindingError>?,
        workspace: Workspace,
        lastError: StatusFile.Entry?,
        check: Bool
    ) async -> StatusRow {
        let profile: Profile?
        switch checked {
        case .success(let valid): profile = valid
        case .failure(let refusal):
            // The provider shown comes from the sealed record, never from the refused settings.
            let record = try? await workspace.store.read(ConnectionID(name))
            return StatusRow(
                name: name,
                provider: record?.account.providerID,
                account: nil,
                state: "misconfigured",
                expiresAt: nil,
                lastRefresh: nil,
                lastError: refusal.failure.message,
                detail: refusal.failure.fix
            )
        case nil: profile = nil
        }
        guard let profile else {
            let record = try? await workspace.store.read(ConnectionID(name))
            return StatusRow.make(
                name: name,
                status: .misconfigured(problem: "no settings in connections.json; sign in again with tether login"),
                record: record,
                lastError: lastError,
                provider: record?.account.providerID
            )
        }
        let session: Session
        do {
            session = try await workspace.session(for: profile)
        } catch {
            let failure = CLIFailure.from(error, connection: name)
            return StatusRow(
                name: name,
                provider: profile.provider.providerID,
                account: nil,
                state: failure.status == .configuration ? "misconfigured" : "storage-unavailable",
                expiresAt: nil,
                lastRefresh: nil,
                lastError: failure.message,
                detail: failure.fix
            )
        }
        // Reading the record is enough for the status; `restore()` could start a refresh that this short-lived
        // process would cut off.
        _ = try? await session.connection()
        var status = await session.status
        var lastError = lastError
        if check, status.isConnected {
            do {
                _ = try await session.validAccessToken()
                workspace.statusFile.clear(name)
                lastError = nil
            } catch {
                let failure = CLIFailure.from(error, connection: name)
                workspace.statusFile.record(failure.message, for: name)
                lastError = StatusFile.Entry(lastError: failure.message, at: Date())
            }
            status = await session.status
        }
        var row = StatusRow.make(
            name: name,
            status: status,
            record: try? await session.connection(),
            lastError: lastError,
            provider: profile.provider.providerID
        )
        if status.isConnected { row.grantEnd = await session.grantEnd }
        return row
    }

    static func printJSON(_ rows: [StatusRow], _ terminal: Terminal) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        terminal.out(String(decoding: try encoder.encode(rows), as: UTF8.self))
    }
}

/// One connection as `tether status` shows it. No token, ever.
struct StatusRow: Encodable {
    var name: String
    var provider: String?
    var account: String?
    var state: String
    var expiresAt: Date?
    var lastRefresh: Date?
    var lastError: String?
    var detail: String?
    /// The store the row was read from, as ``StoreLocation/displayName(home:)`` names it.
    var store: String?
    /// When the grant ends and why, for a connected row whose end anything says.
    var grantEnd: GrantEnd?

    /// Counts the grant as ending soon when it ends within `threshold` of `now`.
    mutating func applyThreshold(_ threshold: Duration, now: Date) {
        guard let end = grantEnd else { return }
        grantEnd?.isSoon = end.date.timeIntervalSince(now) <= Double(threshold.components.seconds)
    }

    /// The line under the table for a grant that ends soon: when, why and what to do.
    var endingSoonLine: String? {
        guard let end = grantEnd, end.isSoon else { return nil }
        let action =
            end.isRenewable
            ? "`tether keep-alive \(name)` refreshes it" : "sign in again with `tether login \(name)` before then"
        return UntrustedText.forTerminal("\(name): expires soon, \(end); \(action)")
    }

    static func make(
        name: String,
        status: ConnectionStatus,
        record: Connection?,
        lastError: StatusFile.Entry?,
        provider: String?
    ) -> StatusRow {
        let account = status.account ?? record?.account
        var detail: String?
        switch status {
        case .offline(_, let next, let error):
            detail = error.message + (next.map { "; next attempt \(Format.relative($0))" } ?? "")
        case .needsSignIn(let reason, _):
            detail = reason.message
        case .misconfigured(let problem):
            detail = problem
        case .storageUnavailable(let error):
            detail = error.message
        default:
            detail = nil
        }
        return StatusRow(
            name: name,
            provider: provider,
            account: account.map { $0.maskedDisplayIdentifier ?? ($0.isUnknown ? "unknown account" : $0.providerID) },
            state: state(status.kind),
            expiresAt: record?.tokens.accessToken == nil ? nil : record?.tokens.expiresAt,
            lastRefresh: record?.tokens.accessToken == nil ? nil : record?.tokens.receivedAt,
            lastError: lastError?.lastError ?? detail.flatMap { status.isConnected ? $0 : nil },
            detail: detail
        )
    }

    static func state(_ kind: ConnectionStatus.Kind) -> String {
        switch kind {
        case .connected: "connected"
        case .refreshing, .restoring: "refreshing"
        case .offline: "offline"
        case .storageUnavailable: "storage-unavailable"
        case .needsSignIn: "needs-sign-in"
        case .notConnected: "not-connected"
        case .misconfigured: "misconfigured"
        }
    }

    /// The row for people. The account and the last error come from the provider (or from `status.json`, which
    /// keeps what it said): ``Format/table(_:)`` makes them safe.
    func cells(style: Style) -> [Format.Cell] {
        let expires: String
        if let expiresAt {
            expires = expiresAt > Date() ? Format.relative(expiresAt) : "expired (refreshes on use)"
        } else {
            expires = state == "connected" ? "unknown" : "—"
        }
        let error = lastError ?? detail ?? "—"
        let grant = grantEnd.map { "\($0.isSoon ? "soon: " : "")\(GrantEnd.day($0.date))" } ?? "—"
        return [
            Format.Cell(name), Format.Cell(provider ?? "—"), Format.Cell(account ?? "—"),
            Format.Cell(state, style: style.state), Format.Cell(expires), Format.Cell(grant),
            Format.Cell(lastRefresh.map { Format.relative($0) } ?? "—"), Format.Cell(String(error.prefix(80))),
        ]
    }

    enum CodingKeys: String, CodingKey {
        case name, provider, account, state, expiresAt, lastRefresh, lastError, detail, store
        case grantEndsAt, grantEnd, grantNote, lastUsed, expiresSoon
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(provider, forKey: .provider)
        try container.encode(account, forKey: .account)
        try container.encode(state, forKey: .state)
        try container.encode(Format.iso8601(expiresAt), forKey: .expiresAt)
        try container.encode(Format.iso8601(lastRefresh), forKey: .lastRefresh)
        try container.encode(lastError, forKey: .lastError)
        try container.encode(detail, forKey: .detail)
        try container.encode(store, forKey: .store)
        try container.encode(Format.iso8601(grantEnd?.date), forKey: .grantEndsAt)
        try container.encode(grantEnd?.kind.rawValue, forKey: .grantEnd)
        try container.encode(grantEnd?.note, forKey: .grantNote)
        // The grant's last use is its last token response, whether or not any rule says when the grant ends.
        try container.encode(Format.iso8601(grantEnd?.lastUsed ?? lastRefresh), forKey: .lastUsed)
        try container.encode(grantEnd?.isSoon ?? false, forKey: .expiresSoon)
    }
}

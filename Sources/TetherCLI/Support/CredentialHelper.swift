import Foundation
import Tether
import TetherCommandSupport

/// Hands a connection's access token to a tool that calls `tether` as its credential helper (git, kubectl,
/// docker, Bazel, Terraform). It takes the path `tether token` takes —
/// ``Workspace/session(for:leaseHeldByParent:revocation:)`` and ``Session/validAccessToken(minimumLifetime:)`` —
/// so that any number of helper processes share one refresh
/// under the vault's lease, and a refresh that a killed helper started finishes in its detached worker. It never
/// signs in: a connection that needs sign-in is a ``CLIFailure`` with exit status 3 and the `tether login` line.
struct CredentialHelper: Sendable {
    let workspace: Workspace

    /// A token and what a tool may want to know with it.
    struct Issued: Sendable {
        let name: String
        let accessToken: AccessToken
        let tokens: TokenSet?
        let profile: Profile

        /// When the access token expires, if the provider said.
        var expiresAt: Date? { tokens?.expiresAt }
    }

    init(_ options: GlobalOptions) throws {
        // A helper creates nothing: a connection that does not exist is a sign-in hint, not a new vault.
        workspace = try Workspace(options, createsHome: false)
    }

    /// The connection of a git host or registry: the one whose saved setting lists it. `nil` when none does.
    /// - Throws: A configuration ``CLIFailure`` when several do.
    func connection(
        serving host: String,
        kind: KeyPath<CredentialHelperSetting, [String]>,
        option: String
    ) throws -> Profile? {
        let matching = try workspace.profiles.load().filter {
            ($0.credentialHelpers?[keyPath: kind] ?? []).contains(host)
        }
        guard matching.count <= 1 else {
            throw CLIFailure(
                .configuration,
                "Several connections are saved for \(host) (\(matching.map(\.name).joined(separator: ", ")))",
                fix: "Name one with --connection, or sign in again to one of them with other \(option) values"
            )
        }
        return matching.first
    }

    /// The profile of a connection named on the command line.
    func profile(named given: String?) throws -> Profile {
        try workspace.profile(named: try workspace.resolveName(given))
    }

    /// A valid access token of `profile`'s connection, refreshed first when it expires soon, or when a tool
    /// reported it rejected (``RejectedTokens``). Any failure is recorded for `tether status` and thrown as a
    /// ``CLIFailure``; when it is "needs sign-in", `signIn` may sign in (`--allow-login`) and try once more.
    func token(
        for profile: Profile,
        signIn: InteractiveSignIn = InteractiveSignIn(allowed: false)
    ) async throws -> Issued {
        try await signIn.retrying(after: profile.name) { try await issue(for: profile) }
    }

    private func issue(for profile: Profile) async throws -> Issued {
        let name = profile.name
        let session = try await workspace.session(for: profile)
        let rejected = RejectedTokens(workspace: workspace)
        do {
            var token = try await session.validAccessToken()
            if let marked = rejected.fingerprint(for: name) {
                if rejected.fingerprint(of: token) == marked {
                    // The tool's server refused this very token: one refresh, shared with every other process
                    // that saw the same refusal (the session skips it when the stored token is already newer).
                    token = try await session.forceRefresh(rejecting: token)
                }
                rejected.clear(name)
            }
            try await TokenCommand.requireStored(session)
            workspace.statusFile.clear(name)
            return Issued(
                name: name,
                accessToken: token,
                tokens: try? await session.connection()?.tokens,
                profile: profile
            )
        } catch {
            let failure = CLIFailure.from(error, connection: name)
            workspace.statusFile.record(failure.message, for: name)
            throw failure
        }
    }

    /// Refreshes now unless another process already replaced `token`: for a token that is still valid while
    /// something issued with it is not (the ID token that kubectl hands to the API server).
    func forcedToken(for profile: Profile, rejecting token: AccessToken) async throws -> Issued {
        let name = profile.name
        let session = try await workspace.session(for: profile)
        do {
            let fresh = try await session.forceRefresh(rejecting: token)
            try await TokenCommand.requireStored(session)
            workspace.statusFile.clear(name)
            return Issued(
                name: name,
                accessToken: fresh,
                tokens: try? await session.connection()?.tokens,
                profile: profile
            )
        } catch {
            let failure = CLIFailure.from(error, connection: name)
            workspace.statusFile.record(failure.message, for: name)
            throw failure
        }
    }
}

/// `$TETHER_HOME/rejected-tokens.json`: for each connection, a keyed fingerprint of the last access token a tool
/// reported refused (`git credential erase`), so that the next helper process refreshes once instead of handing
/// the same token out again. The file holds no token: HMAC-SHA256 with a key derived from the vault key, cut to
/// 96 bits, which tells one connection's tokens apart and cannot be tried against guesses without the key.
struct RejectedTokens: Sendable {
    struct Entry: Codable, Sendable {
        var fingerprint: String
        var at: Date
    }

    static let context = "tether.rejected-access-token.v1"

    let file: EntryFile<Entry>
    let vault: VaultStore

    init(workspace: Workspace) {
        file = EntryFile(home: workspace.home, fileName: "rejected-tokens.json")
        vault = workspace.vault
    }

    /// The fingerprint of a token; `nil` while the vault key cannot be read.
    func fingerprint(of token: AccessToken) -> String? {
        guard
            let code = try? vault.authenticationCode(for: Data(token.revealedValue.utf8), context: Self.context)
        else { return nil }
        return String(code.prefix(16))
    }

    /// The fingerprint recorded for `name`, if any.
    func fingerprint(for name: String) -> String? { file.load()[name]?.fingerprint }

    /// Records that a tool's server refused `token` of connection `name`.
    func record(_ token: AccessToken, for name: String) {
        guard let fingerprint = fingerprint(of: token) else { return }
        file.update { $0[name] = Entry(fingerprint: fingerprint, at: Date()) }
    }

    func clear(_ name: String) { file.remove(name) }
}

/// Times as the helpers' formats want them.
enum HelperTime {
    /// RFC 3339 in UTC with whole seconds (`2026-05-01T12:00:00Z`).
    static func rfc3339(_ date: Date) -> String { Format.iso8601(date) ?? "" }

    /// Seconds since 1970, as git's `password_expiry_utc`.
    static func unix(_ date: Date) -> String { String(Int64(date.timeIntervalSince1970.rounded(.down))) }
}

/// Reads standard input up to `limit` bytes; more is a usage error (a helper's input is a few lines).
enum HelperInput {
    static func read(limit: Int = 1 << 20) throws -> Data {
        var data = Data()
        let handle = FileHandle.standardInput
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            data.append(chunk)
            guard data.count <= limit else {
                throw CLIFailure(.usage, "The input on standard input is longer than \(limit) bytes")
            }
        }
        return data
    }
}

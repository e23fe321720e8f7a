import Foundation
import HTTPTypes
import Logging
import Tether
import TetherCommandSupport
import TetherOAuth

/// What `tether calendar sync` works with in this process: `tether-cli`'s workspace for the vault store, with
/// sessions that never refresh here. A refresh, when one is due or an API refuses a token, runs `tether-cli` with
/// the same arguments in place of this process (``HandOver``), so that refreshing, its lease and its detached
/// worker stay in one program.
struct CalendarToolWorkspace: CommandWorkspace {
    let home: URL
    let vault: VaultStore
    let profiles: ProfileFile
    let transport: any HTTPTransport
    let logger: Logger
    let terminal: Terminal

    init(environment: [String: String], verbose: Bool) throws {
        logger = CommandHome.logger(verbose: CommandHome.isVerbose(verbose, environment: environment))
        terminal = Terminal(environment: environment)
        (home, vault) = try CommandHome.vault(environment: environment, createsHome: false, logger: logger)
        profiles = ProfileFile(home: home, store: vault)
        transport = CommandHome.transport(environment: environment)
    }

    /// The session as `tether-cli` opens it (record readable, client secret open, client configuration valid),
    /// with ``HandOver`` as its refresher.
    func session(for profile: Profile) async throws -> Session {
        let configuration = try await CommandHome.providerConfiguration(of: profile, store: vault, vault: vault)
        do {
            // Checked as `tether-cli` checks it, so that a connection it calls misconfigured is one here too.
            _ = try OAuthClient(configuration: configuration, transport: transport, logger: logger)
        } catch {
            throw CLIFailure.from(error)
        }
        var sessionConfiguration = Session.Configuration()
        sessionConfiguration.grantLifetime = profile.grantRules
        return Session(
            id: ConnectionID(profile.name),
            store: vault,
            refresher: HandOver(),
            configuration: sessionConfiguration,
            logger: logger
        )
    }
}

/// The refresher of this process's sessions: a refresh is `tether-cli`'s to do. It replaces this process with
/// `tether-cli` and the same arguments, before anything was printed; the lease this process holds is released as
/// its files close (the vault opens them close-on-exec), and `tether-cli` takes it again.
struct HandOver: TokenRefresher {
    func refresh(_ request: RefreshRequest) async throws -> TokenResponse {
        FullTool.run(CommandLine.arguments)
    }
}

import Foundation
import Tether

/// Which git hosts and container registries a connection's tokens go to, and the user name they are sent with
/// (`tether login … --git-host HOST --docker-registry HOST`). Kept in connections.json with the connection, covered
/// by its MAC: a token only goes to a host that the user named with the vault key at hand.
package struct CredentialHelperSetting: Sendable, Codable, Equatable {
    /// Git hosts, lowercased, with a port when it is not the scheme's (`github.com`, `git.example.com:8443`).
    package var gitHosts: [String] = []
    /// The user name `tether git-credential` answers with; `nil` for ``defaultGitUsername``.
    package var gitUsername: String? = nil
    /// Container registries, lowercased (`ghcr.io`, `europe-docker.pkg.dev`).
    package var dockerRegistries: [String] = []
    /// The user name `tether docker-credential` answers with; `nil` for ``defaultDockerUsername``.
    package var dockerUsername: String? = nil

    /// What GitLab requires with an OAuth token and what GitHub, Bitbucket and Azure DevOps accept.
    package static let defaultGitUsername = "oauth2"
    /// What Google's registries (Artifact Registry, Container Registry) require with an access token.
    package static let defaultDockerUsername = "oauth2accesstoken"

    package var isEmpty: Bool {
        gitHosts.isEmpty && gitUsername == nil && dockerRegistries.isEmpty && dockerUsername == nil
    }

    /// The setting after `tether login` options: options given replace the saved values, the others are kept.
    package static func merged(
        existing: CredentialHelperSetting?,
        gitHosts: [String],
        gitUsername: String?,
        dockerRegistries: [String],
        dockerUsername: String?
    ) throws -> CredentialHelperSetting? {
        var setting = existing ?? CredentialHelperSetting()
        if !gitHosts.isEmpty { setting.gitHosts = try gitHosts.map { try normalizedHost($0, option: "--git-host") } }
        if !dockerRegistries.isEmpty {
            setting.dockerRegistries = try dockerRegistries.map {
                try normalizedHost($0, option: "--docker-registry")
            }
        }
        if let gitUsername { setting.gitUsername = try validatedUsername(gitUsername, option: "--git-username") }
        if let dockerUsername {
            setting.dockerUsername = try validatedUsername(dockerUsername, option: "--docker-username")
        }
        return setting.isEmpty ? nil : setting
    }

    /// A host as the helpers compare it: lowercased, without a scheme, path or trailing dot; `host[:port]`.
    /// - Throws: A usage ``CLIFailure`` for something that is not a host name.
    package static func normalizedHost(_ given: String, option: String) throws -> String {
        guard let host = host(of: given) else {
            throw CLIFailure(
                .usage,
                "\(option) '\(given.prefix(60))' is not a host name",
                fix: "Give a host such as github.com or registry.example.com:5000"
            )
        }
        return host
    }

    /// The `host[:port]` of a URL or bare host (`https://ghcr.io/v2/`, `index.docker.io/v1/`, `GitHub.com`),
    /// lowercased; `nil` when it has none.
    package static func host(of text: String) -> String? {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        if let scheme = rest.range(of: "://") { rest = rest[scheme.upperBound...] }
        if let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) { rest = rest[..<slash] }
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        var host = rest.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789.-:[]_")
        guard !host.isEmpty, host.count <= 260, host.allSatisfy({ allowed.contains($0) }),
            !host.hasPrefix("-"), !host.hasPrefix(":")
        else { return nil }
        return host
    }

    private static func validatedUsername(_ name: String, option: String) throws -> String {
        guard !name.isEmpty, name.count <= 256,
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw CLIFailure(.usage, "\(option) must be 1 to 256 characters without control characters")
        }
        return name
    }
}

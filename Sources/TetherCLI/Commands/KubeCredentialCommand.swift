import ArgumentParser
import Foundation
import Tether
import TetherCommandSupport

struct KubeCredentialCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kube-credential",
        abstract: "A kubectl exec credential plugin that answers with a connection's token.",
        discussion: """
            Prints an ExecCredential (client.authentication.k8s.io/v1, or the apiVersion kubectl gives in \
            KUBERNETES_EXEC_INFO) with the token and its expiry (RFC 3339), refreshed first when it expires soon. \
            By default the token is the connection's ID token, which is what a Kubernetes API server configured \
            for OpenID Connect (--oidc-issuer-url, or AuthenticationConfiguration) checks; --token access hands \
            over the access token instead, for a webhook or a proxy that takes it.

            It never signs in unless --allow-login is given, kubectl says it may interact (spec.interactive: \
            true) and standard error is a terminal: when the connection needs it, it exits 3 and kubectl shows \
            the line that names the `tether login` to run.

            --print-kubeconfig-user prints the users entry to paste under a kubeconfig's `users:` (it starts \
            with its own `users:` line: appending it to a file that has users would hide them). kubectl adds the \
            same entry without editing the file by hand, as below.

            EXAMPLES
              tether kube-credential --print-kubeconfig-user work
              kubectl config set-credentials work \\
                  --exec-api-version=client.authentication.k8s.io/v1 \\
                  --exec-command=tether --exec-arg=kube-credential --exec-arg=work \\
                  --exec-interactive-mode=Never
            """
    )

    enum TokenKind: String, Sendable, CaseIterable, ExpressibleByArgument {
        case id
        case access
    }

    @Argument(help: "The connection; default: TETHER_CONNECTION, or the only one there is.")
    var connection: String?

    @Option(help: "Which token: id (the OpenID Connect ID token; default) or access.")
    var token: TokenKind = .id

    @Flag(help: "Print the kubeconfig users entry that runs this command, instead of a credential.")
    var printKubeconfigUser = false

    @Flag(
        help: """
            When the connection needs sign-in, kubectl says the plugin may interact (spec.interactive) and standard \
            error is a terminal, sign in, then answer.
            """
    )
    var allowLogin = false

    @OptionGroup var global: GlobalOptions

    static let defaultAPIVersion = "client.authentication.k8s.io/v1"
    static let supportedAPIVersions: Set<String> = [defaultAPIVersion, "client.authentication.k8s.io/v1beta1"]
    /// An ID token with less left than this (or than a quarter of its lifetime, when that is shorter) is renewed:
    /// kubectl caches a credential until its expiry, and the API server's clock may run a little ahead.
    static let idTokenLeeway: TimeInterval = 60

    func run() async throws {
        let terminal = Terminal()
        if printKubeconfigUser {
            let name =
                try connection.map(Workspace.validatedName)
                ?? Workspace(global, createsHome: false).resolveName(nil)
            terminal.out(Self.kubeconfigUser(name: name, token: token))
            return
        }
        let execInfo = ProcessInfo.processInfo.environment["KUBERNETES_EXEC_INFO"]
        let apiVersion = try Self.apiVersion(execInfo)
        let helper = try CredentialHelper(global)
        let profile = try helper.profile(named: connection)
        let signIn = InteractiveSignIn(allowed: allowLogin && Self.mayInteract(execInfo))
        var issued = try await helper.token(for: profile, signIn: signIn)
        let value: String
        let expiresAt: Date?
        switch token {
        case .access:
            value = issued.accessToken.revealedValue
            expiresAt = issued.expiresAt
        case .id:
            var idToken = Self.idToken(issued)
            if idToken.map({ $0.expiresAt.timeIntervalSinceNow < $0.leeway }) ?? true {
                // The access token is still good but the ID token is not: one refresh, shared with every other
                // process (the session skips it when the stored access token is already newer).
                issued = try await helper.forcedToken(for: profile, rejecting: issued.accessToken)
                idToken = Self.idToken(issued)
            }
            guard let idToken, idToken.expiresAt.timeIntervalSinceNow > 0 else {
                throw CLIFailure(
                    .configuration,
                    "The provider of '\(profile.name)' issued no valid ID token",
                    fix: "Sign in with the openid scope (`tether login \(profile.name) --scope openid`), or use "
                        + "--token access"
                )
            }
            value = idToken.value
            expiresAt = idToken.expiresAt
        }
        var status: [String: String] = ["token": value]
        if let expiresAt { status["expirationTimestamp"] = HelperTime.rfc3339(expiresAt) }
        let credential = ExecCredential(apiVersion: apiVersion, status: status)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        terminal.out(String(decoding: try encoder.encode(credential), as: UTF8.self))
    }

    struct ExecCredential: Encodable {
        let apiVersion: String
        var kind = "ExecCredential"
        let status: [String: String]
    }

    /// The apiVersion kubectl asks for in KUBERNETES_EXEC_INFO; v1 when it gives none.
    /// - Throws: A usage ``CLIFailure`` for input that is not an ExecCredential of a known version.
    static func apiVersion(_ execInfo: String?) throws -> String {
        guard let execInfo, !execInfo.isEmpty else { return defaultAPIVersion }
        let object = try? JSONSerialization.jsonObject(with: Data(execInfo.utf8)) as? [String: Any]
        guard let object else {
            throw CLIFailure(.usage, "KUBERNETES_EXEC_INFO is not a JSON object")
        }
        guard let version = object["apiVersion"] as? String else { return defaultAPIVersion }
        guard supportedAPIVersions.contains(version) else {
            throw CLIFailure(
                .usage,
                "KUBERNETES_EXEC_INFO asks for \(version.prefix(80)), which tether does not speak",
                fix: "Set apiVersion: \(defaultAPIVersion) in the kubeconfig's exec entry"
            )
        }
        return version
    }

    /// Whether kubectl lets the plugin interact: `spec.interactive` is true in KUBERNETES_EXEC_INFO, or there is
    /// no KUBERNETES_EXEC_INFO (a person runs the command).
    static func mayInteract(_ execInfo: String?) -> Bool {
        guard let execInfo, !execInfo.isEmpty else { return true }
        let object = try? JSONSerialization.jsonObject(with: Data(execInfo.utf8)) as? [String: Any]
        return (object?["spec"] as? [String: Any])?["interactive"] as? Bool == true
    }

    /// The ID token of an issued credential and its expiry (the `exp` claim; the ID token was verified when it
    /// arrived). `nil` when there is none or it has no readable `exp`.
    static func idToken(_ issued: CredentialHelper.Issued) -> (value: String, expiresAt: Date, leeway: TimeInterval)? {
        guard let value = issued.tokens?.idToken?.revealedValue else { return nil }
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var payload = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        payload += String(repeating: "=", count: (4 - payload.count % 4) % 4)
        guard let data = Data(base64Encoded: payload),
            let claims = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let exp = (claims["exp"] as? NSNumber)?.doubleValue
        else { return nil }
        let lifetime = (claims["iat"] as? NSNumber).map { exp - $0.doubleValue } ?? .infinity
        return (value, Date(timeIntervalSince1970: exp), min(idTokenLeeway, max(0, lifetime) / 4))
    }

    /// The kubeconfig `users` entry (YAML) whose exec plugin runs `tether kube-credential NAME`.
    static func kubeconfigUser(name: String, token: TokenKind) -> String {
        let quoted = "'" + name.replacingOccurrences(of: "'", with: "''") + "'"
        var arguments = ["kube-credential", quoted]
        if token != .id { arguments += ["--token", token.rawValue] }
        return """
            users:
            - name: \(quoted)
              user:
                exec:
                  apiVersion: \(defaultAPIVersion)
                  command: tether
                  args:
            \(arguments.map { "      - \($0)" }.joined(separator: "\n"))
                  interactiveMode: Never
                  provideClusterInfo: false
            """
    }
}

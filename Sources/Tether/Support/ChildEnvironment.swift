/// The environment a process Tether starts (a browser, a helper) inherits.
///
/// Tether reads secrets from its own environment — `TETHER_VAULT_KEY` (the vault's key), `TETHER_CLIENT_SECRET`
/// — and a child has no business with them: a browser keeps its environment for as long as it runs, hands it to
/// its own children, and shows it in `/proc/<pid>/environ` to every process of the same user.
package enum ChildEnvironment {
    /// The prefix of every variable Tether reads; none of them is passed on.
    private static let privatePrefix = "TETHER_"

    /// `environment` without the variables Tether reads (every `TETHER_*` variable).
    /// - Parameter environment: The parent's environment.
    /// - Returns: What the child gets.
    package static func stripped(_ environment: [String: String]) -> [String: String] {
        environment.filter { !$0.key.uppercased().hasPrefix(privatePrefix) }
    }
}

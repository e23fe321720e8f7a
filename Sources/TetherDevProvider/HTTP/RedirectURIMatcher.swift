import Foundation

/// Redirect URI comparison: exact string match, except that loopback URIs match regardless of
/// port (RFC 8252 §7.3, RFC 9700 §2.1).
enum RedirectURIMatcher {
    private static let loopbackHosts: Set<String> = ["127.0.0.1", "::1", "localhost"]

    static func matches(_ requested: String, registered: [String]) -> Bool {
        if registered.contains(requested) {
            return true
        }
        guard let candidate = LoopbackURI(requested) else {
            return false
        }
        return registered.contains { LoopbackURI($0) == candidate }
    }

    /// A loopback `http` URI without its port.
    private struct LoopbackURI: Equatable {
        let host: String
        let path: String
        let query: String?

        init?(_ string: String) {
            guard let components = URLComponents(string: string),
                components.scheme?.lowercased() == "http",
                components.fragment == nil,
                components.user == nil,
                var host = components.host?.lowercased()
            else { return nil }
            if host.hasPrefix("[") && host.hasSuffix("]") {
                host = String(host.dropFirst().dropLast())
            }
            guard RedirectURIMatcher.loopbackHosts.contains(host) else { return nil }
            self.host = host
            self.path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            self.query = components.percentEncodedQuery
        }
    }
}

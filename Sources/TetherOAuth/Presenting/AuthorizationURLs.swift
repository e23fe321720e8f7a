import Foundation

/// What the presenters share about authorization and redirect URLs.
enum AuthorizationURLs {
    /// A URL for logs: scheme, host and path, never the query (it holds `code` and `state`) or the fragment.
    static func redacted(_ url: URL) -> String {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "<url>" }
        return "\(components.scheme ?? "")://\(components.host ?? "")\(components.percentEncodedPath)"
    }
}

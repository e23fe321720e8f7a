import AsyncHTTPClient
import Foundation

/// The proxies a process's environment names, read the way curl reads them, for ``AsyncHTTPClientTransport``.
///
/// - `https_proxy` / `HTTPS_PROXY`: the proxy for `https` URLs; `http_proxy` (and `HTTP_PROXY`, except in a CGI
///   program, where a request's `Proxy:` header would arrive as `HTTP_PROXY`) for `http` URLs; `all_proxy` /
///   `ALL_PROXY` for either when its own variable is not set. The lowercase name wins when both are set.
/// - A proxy is `[http://][user:password@]host[:port]` (port 1080 when none is given) or
///   `socks5://` / `socks5h://host[:port]`. Credentials are sent as HTTP Basic on the tunnel's `CONNECT` and never
///   logged. An `https://` proxy (TLS to the proxy itself) and SOCKS4 are not supported: a request that would use
///   one fails with ``Tether/TransportError/invalidRequest`` naming the variable, instead of going out directly.
/// - `no_proxy` / `NO_PROXY`: comma- or space-separated host names (matching the name and every name under it; a
///   leading `.` or `*.` is the same), IP addresses, CIDR ranges (`10.0.0.0/8`, `fd00::/8`), or `*` for every
///   host. Names are compared without case and without a trailing dot.
///
/// Through a proxy every request goes in a `CONNECT` tunnel, `http` URLs too (AsyncHTTPClient does not forward
/// plain requests), so the proxy must allow `CONNECT` to the port the URL names.
public struct ProxyEnvironment: Sendable, Hashable {
    /// A proxy as the environment names it.
    struct Proxy: Sendable, Hashable {
        enum Kind: Sendable, Hashable {
            case http
            case socks
            /// A scheme this transport cannot speak (`https`, `socks4`, …); requests that would use it fail.
            case unsupported(scheme: String)
            /// A value that is not a proxy URL.
            case malformed
        }

        var kind: Kind
        var host: String
        var port: Int
        var username: String?
        var password: String?
        /// The variable it came from, for error messages (the value may hold a password, so it is never shown).
        var variable: String
    }

    var https: Proxy?
    var http: Proxy?
    var exceptions: [NoProxyRule]
    var bypassesAll: Bool

    /// No proxy: every request goes out directly.
    public static let direct = ProxyEnvironment(environment: [:])

    /// Reads the proxy variables of `environment`.
    /// - Parameter environment: The process's environment, for example `ProcessInfo.processInfo.environment`.
    public init(environment: [String: String]) {
        func value(_ names: String...) -> (name: String, value: String)? {
            for name in names {
                if let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty {
                    return (name, value)
                }
            }
            return nil
        }
        let isCGI = environment["REQUEST_METHOD"] != nil
        let all = value("all_proxy", "ALL_PROXY")
        let https = value("https_proxy", "HTTPS_PROXY") ?? all
        let http = (isCGI ? value("http_proxy") : value("http_proxy", "HTTP_PROXY")) ?? all
        self.https = https.map { Self.parse($0.value, variable: $0.name) }
        self.http = http.map { Self.parse($0.value, variable: $0.name) }
        let rules = value("no_proxy", "NO_PROXY")?.value ?? ""
        let entries = rules.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }).map(String.init)
        bypassesAll = entries.contains("*")
        exceptions = entries.compactMap(NoProxyRule.init)
    }

    /// Whether any request could go through a proxy.
    public var isEmpty: Bool { (https == nil && http == nil) || bypassesAll }

    /// The proxy for a request to `host` over `scheme` (`http` or `https`), or `nil` to go directly.
    func proxy(scheme: String, host: String) -> Proxy? {
        let proxy: Proxy? =
            switch scheme.lowercased() {
            case "https": https
            case "http": http
            default: nil
            }
        guard let proxy, !bypassesAll else { return nil }
        let name = NoProxyRule.normalized(host)
        if exceptions.contains(where: { $0.matches(name) }) { return nil }
        return proxy
    }

    /// AsyncHTTPClient's configuration for `proxy`; `nil` for one it cannot use.
    static func configuration(for proxy: Proxy) -> HTTPClient.Configuration.Proxy? {
        switch proxy.kind {
        case .http:
            let authorization = proxy.username.map {
                HTTPClient.Authorization.basic(username: $0, password: proxy.password ?? "")
            }
            return .server(host: proxy.host, port: proxy.port, authorization: authorization)
        case .socks:
            return .socksServer(host: proxy.host, port: proxy.port)
        case .unsupported, .malformed:
            return nil
        }
    }

    /// Parses one variable's value.
    static func parse(_ value: String, variable: String) -> Proxy {
        let text = value.contains("://") ? value : "http://" + value
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            let rawHost = components.host, !rawHost.isEmpty
        else {
            return Proxy(kind: .malformed, host: "", port: 0, variable: variable)
        }
        let host = rawHost.hasPrefix("[") && rawHost.hasSuffix("]") ? String(rawHost.dropFirst().dropLast()) : rawHost
        let kind: Proxy.Kind =
            switch scheme {
            case "http": .http
            case "socks5", "socks5h": .socks
            default: .unsupported(scheme: scheme)
            }
        let port = components.port ?? 1080
        guard (1...65_535).contains(port) else { return Proxy(kind: .malformed, host: "", port: 0, variable: variable) }
        return Proxy(
            kind: kind,
            host: host,
            port: port,
            username: components.percentEncodedUser.flatMap { $0.removingPercentEncoding },
            password: components.percentEncodedPassword.flatMap { $0.removingPercentEncoding },
            variable: variable
        )
    }
}

/// One entry of `no_proxy`: a host name and the names under it, an IP address, or a CIDR range.
struct NoProxyRule: Sendable, Hashable {
    enum Pattern: Sendable, Hashable {
        case name(String)
        case address([UInt8], prefix: Int)
    }

    let pattern: Pattern

    init?(_ entry: String) {
        var text = entry.trimmingCharacters(in: .whitespaces)
        if text == "*" || text.isEmpty { return nil }
        if text.hasPrefix("*.") { text.removeFirst(2) } else if text.hasPrefix(".") { text.removeFirst() }
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let first = parts.first, !first.isEmpty else { return nil }
        let address = first.hasPrefix("[") ? String(first.dropFirst().prefix { $0 != "]" }) : first
        if let bytes = Self.address(address) {
            let bits = bytes.count * 8
            let prefix = parts.count == 2 ? Int(parts[1]) : bits
            guard let prefix, (0...bits).contains(prefix) else { return nil }
            pattern = .address(bytes, prefix: prefix)
            return
        }
        guard parts.count == 1 else { return nil }
        // A port after a name (`example.com:8080`) is ignored, as curl does.
        let name = Self.normalized(String(text.prefix { $0 != ":" }))
        guard !name.isEmpty else { return nil }
        pattern = .name(name)
    }

    /// Whether a request to `host` (normalized) goes directly.
    func matches(_ host: String) -> Bool {
        switch pattern {
        case .name(let name):
            return host == name || host.hasSuffix("." + name)
        case .address(let network, let prefix):
            guard let bytes = Self.address(host), bytes.count == network.count else { return false }
            var remaining = prefix
            for (a, b) in zip(bytes, network) where remaining > 0 {
                let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
                if a & mask != b & mask { return false }
                remaining -= 8
            }
            return true
        }
    }

    /// A host name as compared: lowercase, without brackets or a trailing dot.
    static func normalized(_ host: String) -> String {
        var name = host.lowercased()
        if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        while name.hasSuffix(".") { name.removeLast() }
        return name
    }

    /// The bytes of an IPv4 or IPv6 address written in text, or `nil` for a name.
    static func address(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }
}

// A proxy URL may hold a password: printing a setting names each proxy's kind, host and port, and whether it has
// credentials, never them.
extension ProxyEnvironment: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        let rules = bypassesAll ? "*" : "\(exceptions.count) rule(s)"
        return "ProxyEnvironment(https: \(https?.description ?? "direct"), http: \(http?.description ?? "direct"), "
            + "no_proxy: \(rules))"
    }

    public var debugDescription: String { description }
}

extension ProxyEnvironment.Proxy: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    var description: String {
        let credentials = username == nil && password == nil ? "" : "credentials@"
        switch kind {
        case .http: return "http://\(credentials)\(host):\(port) from \(variable)"
        case .socks: return "socks5://\(credentials)\(host):\(port) from \(variable)"
        case .unsupported(let scheme): return "\(scheme):// (not supported) from \(variable)"
        case .malformed: return "not a proxy URL, from \(variable)"
        }
    }

    var debugDescription: String { description }

    /// What `dump` and other mirrors show: the description, not the fields.
    var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

import AsyncHTTPClient
import Foundation
import Tether

/// The proxies a process's environment names, read the way curl reads them, for ``AsyncHTTPClientTransport``.
///
/// - `https_proxy` / `HTTPS_PROXY`: the proxy for `https` URLs; `http_proxy` for `http` URLs (lowercase only, as
///   curl reads it: a CGI program finds a request's `Proxy:` header in `HTTP_PROXY`); `all_proxy` / `ALL_PROXY` for
///   either when its own variable is not set. The lowercase name wins when both are set.
/// - A proxy is `[http://][user:password@]host[:port]` (port 1080 when none is given) or
///   `socks5://` / `socks5h://host[:port]`. An HTTP proxy's credentials are sent as HTTP Basic on the tunnel's
///   `CONNECT`, never to the server at the other end, and never logged. Through a SOCKS proxy the proxy resolves the
///   server's name, with `socks5://` as with `socks5h://`. An `https://` proxy (TLS to the proxy itself), SOCKS4 and
///   a SOCKS proxy with credentials are not supported: a request that would use one fails with
///   ``Tether/TransportError/invalidRequest`` naming the variable, instead of going out directly.
/// - `no_proxy` / `NO_PROXY`: comma- or space-separated host names (matching the name and every name under it; a
///   leading `.` or `*.` is the same), IP addresses and CIDR ranges (`10.0.0.0/8`, `fd00::/8`), which match only
///   hosts written as addresses; or `*` alone for every host. Names are compared without case and without a trailing
///   dot.
/// - Unlike curl, this machine is never reached through a proxy: `localhost`, 127.0.0.0/8 and `::1` always go
///   directly. Plain `http` is sent only to them (``Tether`` refuses it elsewhere), on the promise that it stays on
///   this machine; through a proxy it would not, and the proxy would reach its own loopback instead.
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
            /// A SOCKS proxy with a user name or password, which AsyncHTTPClient's SOCKS client cannot send;
            /// requests that would use it fail.
            case socksWithCredentials
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

        /// `host:port`, an IPv6 host in brackets.
        var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
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
        let all = value("all_proxy", "ALL_PROXY")
        let https = value("https_proxy", "HTTPS_PROXY") ?? all
        let http = value("http_proxy") ?? all
        self.https = https.map { Self.parse($0.value, variable: $0.name) }
        self.http = http.map { Self.parse($0.value, variable: $0.name) }
        let rules = value("no_proxy", "NO_PROXY")?.value ?? ""
        // `*` turns every proxy off only as the whole value, as in curl; in a list it means nothing.
        bypassesAll = rules == "*"
        exceptions = rules.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }).compactMap {
            NoProxyRule(String($0))
        }
    }

    /// Whether no request goes through a proxy.
    public var isEmpty: Bool { (https == nil && http == nil) || bypassesAll }

    /// The proxy for a request to `host` over `scheme` (`http` or `https`), or `nil` to go directly.
    func proxy(scheme: String, host: String) -> Proxy? {
        let proxy: Proxy? =
            switch scheme.lowercased() {
            case "https": https
            case "http": http
            default: nil
            }
        guard let proxy, !bypassesAll, !LoopbackHost.contains(host) else { return nil }
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
            // AsyncHTTPClient's SOCKS client offers no authentication: a proxy with credentials is refused when parsed.
            return .socksServer(host: proxy.host, port: proxy.port)
        case .unsupported, .socksWithCredentials, .malformed:
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
        let hasCredentials = components.percentEncodedUser != nil || components.percentEncodedPassword != nil
        let kind: Proxy.Kind =
            switch scheme {
            case "http": .http
            case "socks5", "socks5h": hasCredentials ? .socksWithCredentials : .socks
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

    /// Whether a request to `host` (normalized) goes directly. Names match names, addresses and ranges match
    /// addresses: `1.7` is a name and never matches `10.0.1.7`.
    func matches(_ host: String) -> Bool {
        switch pattern {
        case .name(let name):
            guard Self.address(host) == nil else { return false }
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
        case .http: return "http://\(credentials)\(address) from \(variable)"
        case .socks: return "socks5://\(credentials)\(address) from \(variable)"
        case .unsupported(let scheme): return "\(scheme):// (not supported) from \(variable)"
        case .socksWithCredentials: return "socks5://credentials@\(address) (not supported) from \(variable)"
        case .malformed: return "not a proxy URL, from \(variable)"
        }
    }

    var debugDescription: String { description }

    /// What `dump` and other mirrors show: the description, not the fields.
    var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

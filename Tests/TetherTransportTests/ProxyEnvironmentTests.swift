import AsyncHTTPClient
import Testing

@testable import TetherAsyncHTTPClient

/// How ``ProxyEnvironment`` reads curl's proxy variables and picks the proxy for a request.
struct ProxyEnvironmentTests {
    @Test func eachSchemeTakesItsOwnVariableThenAllProxy() throws {
        let proxies = ProxyEnvironment(environment: [
            "https_proxy": "http://secure.example:3128", "ALL_PROXY": "socks5h://socks.example",
        ])
        let https = try #require(proxies.proxy(scheme: "https", host: "api.example.com"))
        #expect(https.host == "secure.example" && https.port == 3128 && https.kind == .http)
        #expect(https.variable == "https_proxy")
        let http = try #require(proxies.proxy(scheme: "http", host: "api.example.com"))
        #expect(http.host == "socks.example" && http.port == 1080 && http.kind == .socks)
        #expect(http.variable == "ALL_PROXY")
        #expect(ProxyEnvironment(environment: [:]).proxy(scheme: "https", host: "a.example") == nil)
        #expect(ProxyEnvironment(environment: ["HTTPS_PROXY": "  "]).isEmpty)
    }

    @Test func theLowercaseNameWinsAndUppercaseHTTPProxyIsNeverRead() throws {
        let both = ProxyEnvironment(environment: ["https_proxy": "low.example:1", "HTTPS_PROXY": "up.example:2"])
        #expect(both.proxy(scheme: "https", host: "x.example")?.host == "low.example")
        // A CGI program finds a request's `Proxy:` header in HTTP_PROXY: curl reads only the lowercase name.
        let cgi = ProxyEnvironment(environment: ["HTTP_PROXY": "attacker.example:80", "REQUEST_METHOD": "GET"])
        #expect(cgi.proxy(scheme: "http", host: "x.example") == nil)
        let uppercase = ProxyEnvironment(environment: ["HTTP_PROXY": "proxy.example:80", "ALL_PROXY": "all.example"])
        #expect(uppercase.proxy(scheme: "http", host: "x.example")?.host == "all.example")
        let lowercase = ProxyEnvironment(environment: ["http_proxy": "proxy.example:80"])
        #expect(lowercase.proxy(scheme: "http", host: "x.example")?.host == "proxy.example")
    }

    @Test func credentialsAreDecodedAndTheSchemeIsOptional() throws {
        let proxy = ProxyEnvironment.parse("ada%40corp:p%3Ass@[::1]:8080", variable: "https_proxy")
        #expect(proxy.kind == .http)
        #expect(proxy.host == "::1" && proxy.port == 8080)
        #expect(proxy.username == "ada@corp" && proxy.password == "p:ss")
        let configuration = try #require(ProxyEnvironment.configuration(for: proxy))
        #expect(configuration.host == "::1" && configuration.port == 8080)
        #expect(configuration.authorization == .basic(username: "ada@corp", password: "p:ss"))
        #expect("\(proxy)" == "http://credentials@[::1]:8080 from https_proxy")
    }

    @Test func aSocksProxyWithCredentialsIsRefusedNotUsedWithoutThem() {
        let proxy = ProxyEnvironment.parse("socks5h://ada:s3cret@socks.example", variable: "ALL_PROXY")
        #expect(proxy.kind == .socksWithCredentials)
        #expect(ProxyEnvironment.configuration(for: proxy) == nil)
        #expect(!"\(proxy)".contains("s3cret") && !"\(proxy)".contains("ada"))
        let plain = ProxyEnvironment.parse("socks5://socks.example:1081", variable: "ALL_PROXY")
        #expect(plain.kind == .socks && plain.port == 1081)
        #expect(ProxyEnvironment.configuration(for: plain) != nil)
    }

    @Test(arguments: [
        ("https://proxy.example:443", "https"), ("socks4://proxy.example", "socks4"), ("quic://p.example", "quic"),
    ])
    func aProxyOfAnotherKindIsKeptAsUnusable(value: String, scheme: String) {
        let proxy = ProxyEnvironment.parse(value, variable: "HTTPS_PROXY")
        #expect(proxy.kind == .unsupported(scheme: scheme))
        #expect(ProxyEnvironment.configuration(for: proxy) == nil)
        let proxies = ProxyEnvironment(environment: ["HTTPS_PROXY": value])
        #expect(proxies.proxy(scheme: "https", host: "api.example.com")?.kind == .unsupported(scheme: scheme))
    }

    @Test(arguments: ["http://", "http://:8080", "proxy.example:0", "proxy.example:99999", "http://[::1"])
    func aValueThatIsNotAProxyIsMalformed(value: String) {
        #expect(ProxyEnvironment.parse(value, variable: "https_proxy").kind == .malformed)
    }

    @Test func noProxyMatchesNamesTheirSubdomainsAddressesAndRanges() {
        let proxies = ProxyEnvironment(environment: [
            "https_proxy": "proxy.example:3128",
            "no_proxy": "internal.example, .corp.example,*.svc  localhost:8080,10.0.0.0/8,192.168.1.7,fd00::/8,::1",
        ])
        let direct = [
            "internal.example", "API.Internal.Example.", "corp.example", "a.b.corp.example", "svc", "x.svc",
            "localhost", "10.1.2.3", "192.168.1.7", "fd12::1", "[::1]",
        ]
        for host in direct { #expect(proxies.proxy(scheme: "https", host: host) == nil, "\(host)") }
        let proxied = [
            "example.com", "notinternal.example", "11.0.0.1", "192.168.1.8", "fe80::1", "internal.example.org",
        ]
        for host in proxied { #expect(proxies.proxy(scheme: "https", host: host) != nil, "\(host)") }
    }

    @Test func anAsteriskAloneInNoProxyTurnsEveryProxyOffButMeansNothingInAList() {
        let off = ProxyEnvironment(environment: ["ALL_PROXY": "proxy.example:3128", "NO_PROXY": " * "])
        #expect(off.isEmpty)
        #expect(off.proxy(scheme: "https", host: "b.example") == nil)
        let listed = ProxyEnvironment(environment: ["ALL_PROXY": "proxy.example:3128", "NO_PROXY": "a.example,*"])
        #expect(!listed.isEmpty)
        #expect(listed.proxy(scheme: "https", host: "a.example") == nil)
        #expect(listed.proxy(scheme: "https", host: "b.example") != nil)
    }

    @Test func thisMachineIsNeverReachedThroughAProxy() {
        let proxies = ProxyEnvironment(environment: ["https_proxy": "proxy.example:3128", "http_proxy": "p.example"])
        for host in ["localhost", "LOCALHOST", "127.0.0.1", "127.8.9.10", "::1", "[::1]"] {
            #expect(proxies.proxy(scheme: "https", host: host) == nil, "\(host)")
            #expect(proxies.proxy(scheme: "http", host: host) == nil, "\(host)")
        }
        for host in ["localhost.example", "128.0.0.1", "::2", "example.com"] {
            #expect(proxies.proxy(scheme: "https", host: host) != nil, "\(host)")
        }
    }

    @Test func aNameInNoProxyNeverMatchesAnAddress() {
        let proxies = ProxyEnvironment(environment: ["https_proxy": "proxy.example:3128", "no_proxy": "1.7,0.0.1"])
        #expect(proxies.proxy(scheme: "https", host: "10.0.1.7") != nil)
        #expect(proxies.proxy(scheme: "https", host: "10.0.0.1") != nil)
        #expect(proxies.proxy(scheme: "https", host: "host.1.7") == nil)
    }

    @Test func noProxyEntriesThatMeanNothingAreIgnored() {
        #expect(NoProxyRule("") == nil)
        #expect(NoProxyRule("10.0.0.0/33") == nil)
        #expect(NoProxyRule("name.example/8") == nil)
        #expect(NoProxyRule(".") == nil)
    }

    @Test func theHostOfAnAuthorityLeavesOutUserAndPort() {
        #expect(AsyncHTTPClientTransport.host(ofAuthority: "ada@api.example.com:8443") == "api.example.com")
        #expect(AsyncHTTPClientTransport.host(ofAuthority: "[::1]:8080") == "[::1]")
        #expect(AsyncHTTPClientTransport.host(ofAuthority: "example.com") == "example.com")
    }
}

extension ProxyEnvironmentTests {
    @Test func printingASettingNeverShowsItsCredentials() {
        let proxies = ProxyEnvironment(environment: [
            "HTTPS_PROXY": "http://ada:s3cret-pass@proxy.example:3128", "http_proxy": "https://bob:hunter2@p.example",
            "NO_PROXY": "internal.example",
        ])
        for text in [
            "\(proxies)", String(reflecting: proxies), "\(proxies.https.map { "\($0)" } ?? "")",
            String(reflecting: proxies.http as Any), dumped(proxies),
        ] {
            #expect(!text.contains("s3cret-pass") && !text.contains("hunter2"), "\(text)")
            #expect(!text.contains("ada") && !text.contains("bob"), "\(text)")
        }
        #expect("\(proxies)".contains("proxy.example:3128"))
    }
}

/// What `dump` prints of `value`.
private func dumped(_ value: some Any) -> String {
    var text = ""
    dump(value, to: &text)
    return text
}

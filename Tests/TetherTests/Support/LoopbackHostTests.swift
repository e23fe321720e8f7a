import Testing

@testable import Tether

struct LoopbackHostTests {
    @Test(arguments: ["127.0.0.1", "127.255.0.9", "localhost", "LOCALHOST", "::1", "[::1]"])
    func loopbackHosts(_ host: String) {
        #expect(LoopbackHost.contains(host))
    }

    @Test(arguments: ["128.0.0.1", "127.0.0", "127.0.0.256", "example.com", "localhost.example.com", "::2", ""])
    func otherHosts(_ host: String) {
        #expect(!LoopbackHost.contains(host))
    }

    @Test func authorities() {
        #expect(LoopbackHost.contains(authority: "127.0.0.1:8080"))
        #expect(LoopbackHost.contains(authority: "[::1]:443"))
        #expect(LoopbackHost.contains(authority: "localhost"))
        #expect(!LoopbackHost.contains(authority: "127.0.0.1@example.com"))
        #expect(!LoopbackHost.contains(authority: "example.com:80"))
        #expect(!LoopbackHost.contains(authority: ""))
    }
}

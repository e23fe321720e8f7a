import Testing
import TetherURLSession

@testable import TetherCLI

/// Which transport `tether` sends its requests through (docs/decisions.md §28).
struct WorkspaceTransportTests {
    @Test func withoutAProxyTetherUsesAsyncHTTPClient() {
        #expect(!(Workspace.transport(environment: [:]) is URLSessionTransport))
        #expect(!(Workspace.transport(environment: ["HTTPS_PROXY": ""]) is URLSessionTransport))
    }

    @Test(arguments: ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"])
    func aProxyInTheEnvironmentKeepsURLSessionWhichHonoursIt(variable: String) {
        let transport = Workspace.transport(environment: [variable: "http://127.0.0.1:3128"])
        #expect(transport is URLSessionTransport)
    }
}

import Foundation
import SignInTestSupport
import Testing
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

/// The programs in Examples/, run against the development provider.
@Suite(.timeLimit(.minutes(2)))
struct ExampleTests {
    @Test func signInAndCallSignsInWithADeviceCodeAndCallsUserinfo() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        let running = try cli.launch([cli.issuer], executable: "SignInAndCall")
        let codeLine = try await running.waitForErrorLine(timeout: .seconds(30)) { $0.contains("enter the code") }
        let code = try #require(codeLine.split(separator: " ").last.map(String.init))
        let page = try #require(URL(string: cli.provider.url("/device").absoluteString + "?user_code=\(code)"))
        let (_, answer) = try await FormBrowser().submit(page, extraFields: ["user_code": code])
        #expect(answer.contains("Device connected"))

        let result = try await running.finish(timeout: .seconds(30))
        #expect(result.status == 0, "SignInAndCall failed: \(result.stderr)")
        #expect(result.stdout.contains("GET \(cli.provider.url("/userinfo").absoluteString): 200"))
        #expect(result.stdout.contains("ada"))
        #expect(await cli.provider.admin.counters()[.deviceApprovals] == 1)
    }
}

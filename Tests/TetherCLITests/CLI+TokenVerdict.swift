import Foundation
import HTTPTypes
import Testing
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport
import TetherURLSession

extension CLI {
    /// What the development provider's `/userinfo` says of an access token `tether` printed.
    enum TokenVerdict: Equatable, Sendable {
        /// The provider accepted it.
        case accepted
        /// A token the provider issued for a grant that is still alive, whose lifetime ended before the provider
        /// saw it: on a loaded machine a few seconds of lifetime can pass between printing and checking.
        case expired
        /// Unknown, revoked, or of a revoked grant.
        case refused(status: Int)
    }

    /// Asks the provider whether it accepts `token`, telling an expired token of a live grant from a refused one.
    func verdict(on token: String) async throws -> TokenVerdict {
        var request = HTTPRequest(method: .get, url: provider.url("/userinfo"))
        request.headerFields[.authorization] = "Bearer \(token)"
        let (response, _) = try await URLSessionTransport().send(request, body: nil)
        if response.status.code == 200 { return .accepted }
        // The development provider says "The access token expired" only for a token of a grant it has not revoked.
        let challenge = response.headerFields[.wwwAuthenticate] ?? ""
        return challenge.contains("The access token expired") ? .expired : .refused(status: response.status.code)
    }

    /// Runs `tether token` and checks the printed token at once, up to `attempts` times while the provider only says
    /// the token expired: on a loaded machine it can expire between printing and checking, and the next run then
    /// refreshes. A lost grant fails every attempt, and so does a client that holds for valid a token the provider
    /// holds expired (it would print the same one each time). Returns whether the provider accepted one.
    @discardableResult
    func expectTheNextTokenIsAccepted(
        attempts: Int = 3,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Bool {
        for _ in 0..<attempts {
            let next = try await run(["token"])
            guard next.status == 0 else {
                Issue.record("`tether token` failed: \(next.stderr)", sourceLocation: sourceLocation)
                return false
            }
            switch try await verdict(on: next.trimmedOutput) {
            case .accepted:
                return true
            case .expired:
                continue
            case .refused(let status):
                Issue.record("the provider refused the printed token (HTTP \(status))", sourceLocation: sourceLocation)
                return false
            }
        }
        Issue.record("every token `tether token` printed had expired before the check", sourceLocation: sourceLocation)
        return false
    }
}

/// The verdict the soak, kill and interruption tests rely on tells the three cases apart.
@Suite struct TokenVerdictTests {
    @Test func theVerdictTellsAnExpiredTokenOfALiveGrantFromARefusedOne() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }
        #expect(try await cli.loginWithDeviceCode().status == 0)
        let token = try await cli.run(["token"]).trimmedOutput
        #expect(try await cli.verdict(on: token) == .accepted)
        await cli.provider.admin.expireAccessTokens()
        #expect(try await cli.verdict(on: token) == .expired)
        #expect(try await cli.verdict(on: "not-a-token") == .refused(status: 401))
        _ = await cli.provider.admin.revokeAllGrants()
        #expect(try await cli.verdict(on: token) == .refused(status: 401))
    }
}

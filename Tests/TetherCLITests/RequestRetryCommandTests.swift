import Foundation
import Testing
import TetherCommandSupport
import TetherDevProvider
import TetherTestSupport

/// `tether request` after 429 and 503: what it sends again, how long it waits, and what it says when it does not
/// wait. Against the development provider's resource endpoint on 127.0.0.1.
@Suite(.timeLimit(.minutes(3)))
struct RequestRetryCommandTests {
    /// A signed-in CLI and the URL of the provider's resource.
    static func signedIn() async throws -> (CLI, String) {
        let cli = try await CLI.start()
        #expect(try await cli.loginWithDeviceCode().status == 0)
        return (cli, cli.provider.url("/resource").absoluteString)
    }

    /// Collapses the line breaks and indentation of help text.
    static func flattened(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    }

    @Test func aGetAnswered429WithAShortRetryAfterIsSentAgainAfterIt() async throws {
        let (cli, resource) = try await Self.signedIn()
        defer { Task { await cli.stop() } }
        await cli.provider.admin.rateLimitNext(1, requestsTo: .resource, retryAfterSeconds: 1)
        let before = await cli.provider.admin.counters()

        let started = ContinuousClock.now
        let result = try await cli.run(["request", "dev", resource])
        let elapsed = ContinuousClock.now - started

        #expect(result.status == 0, "\(result.stderr)")
        let after = await cli.provider.admin.counters()
        #expect(after.requests(to: .resource) - before.requests(to: .resource) == 2)
        #expect(after.responses(from: .resource, status: 429) - before.responses(from: .resource, status: 429) == 1)
        #expect(elapsed >= .seconds(1), "tether did not wait for Retry-After")
    }

    @Test func aRetryAfterLongerThanTheCapEndsTheCommandAtOnceAndSaysHowLong() async throws {
        let (cli, resource) = try await Self.signedIn()
        defer { Task { await cli.stop() } }
        await cli.provider.admin.rateLimitNext(1, requestsTo: .resource, retryAfterSeconds: 59)
        let before = await cli.provider.admin.counters()

        let started = ContinuousClock.now
        let result = try await cli.run(["request", "dev", resource], timeout: .seconds(50))
        let elapsed = ContinuousClock.now - started

        #expect(result.status == 4, "\(result.stderr)")
        #expect(elapsed < .seconds(20), "tether waited \(elapsed) instead of reporting the Retry-After")
        let after = await cli.provider.admin.counters()
        #expect(after.requests(to: .resource) - before.requests(to: .resource) == 1)
        let message = Self.flattened(result.stderr)
        #expect(message.contains("answered HTTP 429"), "\(result.stderr)")
        #expect(message.contains("59 seconds, longer than the 30 seconds tether request waits"), "\(result.stderr)")
        #expect(message.contains("Try again in 59 seconds"), "\(result.stderr)")
    }

    @Test func aPostAnswered429IsNotSentAgain() async throws {
        let (cli, resource) = try await Self.signedIn()
        defer { Task { await cli.stop() } }
        await cli.provider.admin.rateLimitNext(1, requestsTo: .resource, retryAfterSeconds: 1)
        let before = await cli.provider.admin.counters()

        let result = try await cli.run(["request", "dev", resource, "-d", "{}"])

        #expect(result.status == 4, "\(result.stderr)")
        let after = await cli.provider.admin.counters()
        #expect(after.requests(to: .resource) - before.requests(to: .resource) == 1)
        #expect(Self.flattened(result.stderr).contains("Try again in 1 second"), "\(result.stderr)")
    }

    @Test func theHelpSaysExactlyWhatIsRetriedAndForHowLong() async throws {
        let cli = try await CLI.start()
        defer { Task { await cli.stop() } }

        let help = try await cli.run(["request", "--help"])

        let text = Self.flattened(help.stdout)
        #expect(text.contains("A GET, HEAD, OPTIONS, PUT or DELETE answered 429 or 503 is sent again, at most twice"))
        #expect(text.contains("as long as that delay is at most 30 seconds"), "\(help.stdout)")
        #expect(text.contains("A longer Retry-After, a 429 or 503 to another method"))
    }
}

import Foundation
import HTTPTypes
import Testing
import Tether
import TetherAsyncHTTPClient
import TetherURLSession

/// Both transports against servers that answer too slowly or too much: one deadline covers the whole request, body
/// included, and the size limit holds while the body streams in, so that neither time nor memory is the server's
/// to decide. Serialized: the memory checks read the process's peak, which a second transfer would raise.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct SlowAndLargeResponseTests {
    enum Kind: String, CaseIterable, Sendable {
        case urlSession
        case asyncHTTPClient
    }

    /// A transport of `kind` with a short timeout, and its shutdown.
    static func transport(
        _ kind: Kind,
        timeout: Duration = .seconds(1),
        maximumResponseSize: Int = 1 << 20
    ) -> (any HTTPTransport, @Sendable () async -> Void) {
        let configuration = HTTPTransportConfiguration(timeout: timeout, maximumResponseSize: maximumResponseSize)
        switch kind {
        case .urlSession:
            return (URLSessionTransport(configuration: configuration), {})
        case .asyncHTTPClient:
            let transport = AsyncHTTPClientTransport(configuration: configuration)
            return (transport, { try? await transport.shutdown() })
        }
    }

    /// Sends a GET to `server` and returns the error it ended with, and how long that took.
    static func failure(
        of transport: any HTTPTransport,
        against server: MisbehavingServer
    ) async -> (error: (any Error)?, elapsed: Duration) {
        let started = ContinuousClock.now
        do {
            _ = try await transport.send(HTTPRequest(method: .get, url: server.url), body: nil)
            return (nil, ContinuousClock.now - started)
        } catch {
            return (error, ContinuousClock.now - started)
        }
    }

    @Test(arguments: Kind.allCases) func aBodyDribbledByteByByteTimesOutAtTheDeadline(_ kind: Kind) async throws {
        // 1000 bytes, one every 100 ms: 100 s in all, but never 100 ms without a byte.
        let server = try MisbehavingServer(.dribbleBody(every: .milliseconds(100), length: 1000))
        defer { server.stop() }
        let (transport, shutdown) = Self.transport(kind, timeout: .seconds(1))
        defer { Task { await shutdown() } }

        let (error, elapsed) = await Self.failure(of: transport, against: server)

        let transportError = try #require(error as? TransportError, "\(String(describing: error))")
        #expect(transportError == .timedOut)
        #expect(transportError.isTransient)
        #expect(elapsed >= .milliseconds(900))
        // The body would take 100 s; a bound far below that, and far above the deadline, tells a request cut at
        // its deadline from one that read on, however loaded the machine.
        #expect(elapsed < .seconds(30), "the request ended after \(elapsed)")
        // The transfer really stopped: the server's next byte found the connection closed.
        let connection = try #require(try await server.waitForClose())
        #expect(connection.closedAt != nil, "the connection stayed open after the timeout")
        #expect(connection.bodyBytesWritten < 300)
    }

    @Test(arguments: Kind.allCases) func headersDribbledByteByByteTimeOutAtTheDeadline(_ kind: Kind) async throws {
        let server = try MisbehavingServer(.dribbleHeaders(every: .milliseconds(50)))
        defer { server.stop() }
        let (transport, shutdown) = Self.transport(kind, timeout: .seconds(1))
        defer { Task { await shutdown() } }

        let (error, elapsed) = await Self.failure(of: transport, against: server)

        #expect(TransportError.timedOut ~= (error ?? CancellationError()), "\(String(describing: error))")
        // The head would take 100 s.
        #expect(elapsed < .seconds(30), "the request ended after \(elapsed)")
        #expect(try await server.waitForClose()?.closedAt != nil, "the connection stayed open after the timeout")
    }

    @Test(arguments: Kind.allCases) func anEndlessBodyIsCutAtTheLimit(_ kind: Kind) async throws {
        // 256 MiB, chunked, as fast as the client reads: a transport that buffers first holds all of it.
        try await expectCutAtTheLimit(kind, MisbehavingServer(.flood(declaredLength: nil)))
    }

    @Test(arguments: Kind.allCases) func aDeclaredLengthOverTheLimitIsRefusedBeforeTheBody(_ kind: Kind) async throws {
        // 1.5 GB announced (256 MiB sent), as fast as the client reads.
        try await expectCutAtTheLimit(kind, MisbehavingServer(.flood(declaredLength: 1_500_000_000)))
    }

    /// Expects a GET to `server` to fail with `responseTooLarge` at the 1 MiB limit, promptly, without the
    /// process's peak memory growing by anything like the body.
    func expectCutAtTheLimit(_ kind: Kind, _ server: MisbehavingServer) async throws {
        defer { server.stop() }
        let (transport, shutdown) = Self.transport(kind, timeout: .seconds(20))
        defer { Task { await shutdown() } }
        let peakBefore = Self.peakResidentBytes()

        let (error, _) = await Self.failure(of: transport, against: server)

        let transportError = try #require(error as? TransportError, "\(String(describing: error))")
        #expect(transportError == .responseTooLarge)
        #expect(!transportError.isTransient)
        switch kind {
        case .asyncHTTPClient:
            // NIO reads only as fast as the body is consumed, so the server got rid of the limit plus what the
            // sockets' buffers hold (a few MiB on loopback) before the client closed, and the process held no more.
            // Suites running alongside allocate too, but nowhere near the 256 MiB a buffering transport holds.
            let growth = Self.peakResidentBytes() - peakBefore
            #expect(growth < 128 << 20, "the peak resident memory grew by \(growth >> 20) MiB")
            let connection = try #require(try await server.waitForClose())
            #expect(connection.closedAt != nil, "the connection stayed open after the limit")
            #expect(connection.bodyBytesWritten < 32 << 20, "the server wrote \(connection.bodyBytesWritten) bytes")
        case .urlSession:
            // FoundationNetworking reads without back-pressure: its delegate gets every chunk libcurl read, and
            // drops those past the limit, until the cancellation has gone through the session's work queue. Alone,
            // the peak grows by a few MiB; on a machine whose cores are busy elsewhere, loopback can deliver (and
            // the delegate queue hold) hundreds of MiB first, so neither bytes nor memory are bounded tightly here.
            break
        }
    }

    /// The process's peak resident memory so far (`VmHWM`), in bytes; 0 where /proc is missing.
    static func peakResidentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
        let kilobytes = line.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) }
        return (kilobytes ?? 0) * 1024
    }

    @Test(arguments: Kind.allCases) func aBodyAtTheLimitIsAccepted(_ kind: Kind) async throws {
        // 200 bytes, one at a time: exactly the limit, well within the deadline.
        let server = try MisbehavingServer(.dribbleBody(every: .milliseconds(1), length: 200))
        defer { server.stop() }
        let (transport, shutdown) = Self.transport(kind, timeout: .seconds(10), maximumResponseSize: 200)
        defer { Task { await shutdown() } }

        let (response, body) = try await transport.send(HTTPRequest(method: .get, url: server.url), body: nil)

        #expect(response.status == .ok)
        #expect(body.count == 200)
    }
}

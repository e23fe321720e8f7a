import Foundation
import HTTPTypes
import Hummingbird
import ProviderTestSupport
import Testing
import Tether
import TetherCalendar
import TetherTesting
import TetherURLSession

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An API that cannot be reached: a refused connection on 127.0.0.1 is tried once and the cache serves at once; a
/// timeout is tried again with the backoff.
@Suite(.timeLimit(.minutes(2)))
struct UnreachableCalendarTests {
    /// A port on 127.0.0.1 that nothing listens on: bound by this process, then closed.
    static func closedPort() throws -> Int {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(fd, address, length) == 0 && getsockname(fd, address, &length) == 0
            }
        }
        try #require(bound)
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test func aRefusedConnectionOnLoopbackIsTriedOnceAndTheCacheServesAtOnce() async throws {
        let harness = try await CalendarHarness.start()
        defer { Task { await harness.stop() } }
        let ada = try await harness.signInAda()
        let window = await harness.window()
        let first = await (try harness.connections(harness.google(ada))).fetch(window: window)
        #expect(first.isComplete)
        #expect(!first.events.isEmpty)

        // The next launch finds the API gone: nothing listens on its port. Backoff waits would be real here.
        let counting = CountingTransport(URLSessionTransport())
        let unreachable = GoogleCalendarClient(
            session: ada,
            transport: counting,
            configuration: GoogleCalendarClient.Configuration(
                baseURL: URL(string: "http://127.0.0.1:\(try Self.closedPort())/calendar/v3")!
            ),
            logger: silent
        )
        let connections = CalendarConnections(
            sources: [unreachable],
            cache: try harness.cache(),
            timeZone: utc,
            dateSource: harness.clock.dateSource,
            logger: silent
        )
        let started = ContinuousClock.now
        let result = await connections.fetch(window: window)
        let elapsed = ContinuousClock.now - started

        // One attempt, so no backoff wait (the calendar's backoff waits 7 seconds over its attempts); the time has
        // room for a loaded machine running the other suites.
        #expect(counting.count(containing: "/") == 1)
        #expect(elapsed < .seconds(5), "\(elapsed)")
        let report = try #require(result.report(for: unreachable.id))
        #expect(report.served == .cache)
        #expect(report.error == .offline)
        #expect(report.status.kind == .offline)
        #expect(result.events == first.events)
    }

    @Test func aTimeoutIsTriedAgainWithTheBackoff() async throws {
        let harness = try await CalendarHarness.start()
        defer { Task { await harness.stop() } }
        let ada = try await harness.signInAda()
        // A server that takes every connection and never answers: each attempt times out after a second.
        let server = try SilentServer()
        defer { server.stop() }
        let client = GoogleCalendarClient(
            session: ada,
            transport: URLSessionTransport(configuration: HTTPTransportConfiguration(timeout: .seconds(1))),
            id: "silent",
            configuration: GoogleCalendarClient.Configuration(
                baseURL: URL(string: "http://127.0.0.1:\(server.port)/calendar/v3")!
            ),
            clock: harness.clock,
            logger: silent
        )

        let (failure, waited) = try await drive(harness.clock) { () async -> (any Error)? in
            do {
                _ = try await client.sync(window: HostileCalendarServer.window)
                return nil
            } catch {
                return error
            }
        }

        #expect((failure as? CalendarError) == .offline, "\(String(describing: failure))")
        // Backoff.calendar: 4 attempts, 1, 2 and 4 seconds apart on the client's clock.
        #expect(server.connections == Backoff.calendar.maximumAttempts)
        #expect(waited >= Duration.seconds(7))
    }
}

/// A TCP server on 127.0.0.1 that accepts every connection and never sends a byte, and counts the connections.
final class SilentServer: Sendable {
    let port: Int
    private let listener: Int32
    private let accepted = LockedState<[Int32]>([])

    var connections: Int { accepted.withLock { $0.count } }

    init() throws {
        #if canImport(Glibc)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let listener = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        try #require(listener >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && getsockname(listener, address, &length) == 0
                    && listen(listener, 16) == 0
            }
        }
        try #require(ready)
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        let accepted = accepted
        Thread.detachNewThread {
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                accepted.withLock { $0.append(connection) }
            }
        }
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for connection in accepted.withLock({ $0 }) { close(connection) }
    }
}

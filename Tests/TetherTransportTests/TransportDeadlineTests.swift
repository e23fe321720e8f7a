import Testing
import Tether

/// The deadline the built-in transports put around a whole exchange, without a network.
struct TransportDeadlineTests {
    /// An exchange that ends only when cancelled.
    @Sendable static func never() async throws -> Int {
        try await Task.sleep(for: .seconds(60))
        return 0
    }

    @Test func anExchangeWithinTheDeadlineReturnsItsResult() async throws {
        let result = try await TransportDeadline.run(within: .seconds(10), on: ContinuousClock(), target: "t") { 42 }
        #expect(result == 42)
    }

    @Test func anExchangePastTheDeadlineIsCancelledAndTimesOut() async throws {
        let started = ContinuousClock.now
        let error = await #expect(throws: TransportError.self) {
            _ = try await TransportDeadline.run(
                within: .milliseconds(100),
                on: ContinuousClock(),
                target: "http://127.0.0.1/token",
                Self.never
            )
        }
        #expect(error == .timedOut)
        #expect(error?.isTransient == true)
        #expect(error?.message.contains("http://127.0.0.1/token") == true)
        // Cancelled at the deadline, not after the exchange's 60 s: with room for a loaded machine, whose concurrency
        // pool took 13.8 s to run the timeout once while the whole suite ran beside it.
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test func anExchangesOwnErrorIsThrownAsItIs() async throws {
        await #expect(throws: TransportError.cannotConnect) {
            _ = try await TransportDeadline.run(within: .seconds(10), on: ContinuousClock(), target: "t") { () -> Int in
                throw TransportError.cannotConnect
            }
        }
    }

    @Test func theCallersCancellationIsNotATimeout() async throws {
        let call = Task {
            try await TransportDeadline.run(within: .seconds(30), on: ContinuousClock(), target: "t", Self.never)
        }
        try await Task.sleep(for: .milliseconds(50))
        call.cancel()
        let result = await call.result
        #expect(throws: CancellationError.self) { try result.get() }
    }

    @Test func describesTheTimeout() {
        #expect(TransportDeadline.describe(.seconds(30)) == "30 seconds")
        #expect(TransportDeadline.describe(.milliseconds(1500)) == "1.5 seconds")
        #expect(TransportDeadline.describe(.milliseconds(250)) == "250 ms")
    }
}

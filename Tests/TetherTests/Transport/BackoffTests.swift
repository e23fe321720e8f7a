import Testing
import Tether

struct BackoffTests {
    @Test func delaysGrowByTheMultiplierUpToTheMaximum() {
        let backoff = Backoff(initialDelay: .seconds(1), multiplier: 2, maximumDelay: .seconds(3), jitter: 0)
        var random = SystemRandomNumberGenerator()
        let waits = (1...4).map { backoff.delay(afterAttempt: $0, retryAfter: nil, using: &random) }
        #expect(waits == [.seconds(1), .seconds(2), .seconds(3), .seconds(3)])
    }

    @Test func aMultiplierOfOneKeepsTheDelay() {
        let backoff = Backoff(initialDelay: .seconds(1), multiplier: 1, jitter: 0)
        var random = SystemRandomNumberGenerator()
        #expect(backoff.delay(afterAttempt: 1, retryAfter: nil, using: &random) == .seconds(1))
        #expect(backoff.delay(afterAttempt: 2, retryAfter: nil, using: &random) == .seconds(1))
    }

    @Test func retryAfterIsTakenUpToItsLimitAndALongerOneEndsTheCall() {
        var random = SystemRandomNumberGenerator()
        let session = Backoff(maximumDelay: .seconds(30))
        #expect(session.delay(afterAttempt: 1, retryAfter: .seconds(30), using: &random) == .seconds(30))
        #expect(session.delay(afterAttempt: 1, retryAfter: .seconds(31), using: &random) == nil)
        let separate = Backoff(maximumDelay: .seconds(3), jitter: 0, maximumRetryAfter: .seconds(10))
        #expect(separate.delay(afterAttempt: 1, retryAfter: .seconds(7), using: &random) == .seconds(7))
        #expect(separate.delay(afterAttempt: 1, retryAfter: .seconds(11), using: &random) == nil)
    }

    @Test func jitterStaysWithinItsShareAndTheMaximum() {
        let backoff = Backoff(initialDelay: .seconds(10), maximumDelay: .seconds(11), jitter: 0.2)
        var random = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            let wait = backoff.delay(afterAttempt: 1, retryAfter: nil, using: &random)
            #expect(wait.map { $0 >= .seconds(8) && $0 <= .seconds(11) } == true)
        }
    }

    @Test func valuesAreClamped() {
        let backoff = Backoff(maximumAttempts: 0, jitter: 3)
        #expect(backoff.maximumAttempts == 1)
        #expect(backoff.jitter == 1)
    }
}

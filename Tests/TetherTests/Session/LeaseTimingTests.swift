import Testing
import Tether

/// A waiter must not give up on the lease while a live holder can still be refreshing under it.
struct LeaseTimingTests {
    @Test func defaultLeaseTimeoutCoversTheLongestRefreshOfALiveHolder() {
        let configuration = Session.Configuration()
        let retry = configuration.retry
        let requestTimeout = HTTPTransportConfiguration().timeout
        // Every attempt may take the whole request timeout, and every wait between attempts the longest delay.
        let longestHold = requestTimeout * retry.maximumAttempts + retry.maximumDelay * (retry.maximumAttempts - 1)
        #expect(configuration.leaseTimeout >= longestHold)
    }
}

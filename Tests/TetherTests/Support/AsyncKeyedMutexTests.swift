import Testing

@testable import Tether

@Suite(.timeLimit(.minutes(2)))
struct AsyncKeyedMutexTests {
    /// Waiters are cancelled at random moments, some of them just after the key was handed to them; afterwards
    /// nobody holds the key.
    @Test func cancelledWaitersNeverKeepTheKey() async throws {
        let key = "connection"
        for iteration in 0..<300 {
            let mutex = AsyncKeyedMutex()
            #expect(mutex.tryLock(key))
            let waiters = (0..<8).map { _ in
                Task {
                    // A leaked key would make the waiters behind it give up after this timeout, not hang.
                    guard try await mutex.lock(key, timeout: .seconds(5), clock: ContinuousClock()) else { return }
                    await Task.yield()
                    mutex.unlock(key)
                }
            }
            await Task.yield()
            mutex.unlock(key)
            for waiter in waiters.shuffled() where Bool.random() {
                for _ in 0..<Int.random(in: 0...3) { await Task.yield() }
                waiter.cancel()
            }
            for waiter in waiters { _ = await waiter.result }
            let isFree = mutex.tryLock(key)
            #expect(isFree, "The key was still held after iteration \(iteration)")
            guard isFree else { return }
        }
    }

    /// A waiter cancelled while it waits leaves the queue; the next one gets the key.
    @Test func aCancelledWaiterIsSkipped() async throws {
        let mutex = AsyncKeyedMutex()
        #expect(mutex.tryLock("k"))
        let cancelled = Task { try await mutex.lock("k", timeout: .seconds(60), clock: ContinuousClock()) }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        mutex.unlock("k")
        #expect(try await mutex.lock("k", timeout: .seconds(60), clock: ContinuousClock()))
    }
}

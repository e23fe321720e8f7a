package import Foundation
package import HTTPTypes
import Tether

/// Counts requests and answers none: proves that nothing was sent.
package final class CountingTransport: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var sent = 0

    package init() {}

    package var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return sent
    }

    package func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        lock.withLock { sent += 1 }
        throw TransportError.cannotConnect
    }
}

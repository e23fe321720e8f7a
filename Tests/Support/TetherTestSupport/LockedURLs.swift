package import Foundation

/// URLs seen by a browser or presenter, for assertions.
package final class LockedURLs: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [URL] = []

    package init() {}

    package func append(_ url: URL) { lock.withLock { stored.append(url) } }
    package var urls: [URL] { lock.withLock { stored } }
}

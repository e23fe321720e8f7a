public import Foundation

/// A ``DevProvider`` serving on a loopback port, as returned by ``DevProvider/start()``.
@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
public struct RunningDevProvider: Sendable {
    /// The issuer identifier, e.g. `http://127.0.0.1:54321`. Endpoints hang off it
    /// (`/token`, `/authorize`, `/.well-known/openid-configuration`, …).
    public let issuer: URL
    /// The TCP port the server is bound to.
    public let port: Int
    /// The key the `/admin/` endpoints expect in the `X-Tether-Admin` header.
    public let adminKey: String
    /// Fault injection, state manipulation and counters, without HTTP.
    public let admin: DevProvider.Admin

    private let task: Task<Void, Never>

    init(issuer: URL, port: Int, adminKey: String, admin: DevProvider.Admin, task: Task<Void, Never>) {
        self.issuer = issuer
        self.port = port
        self.adminKey = adminKey
        self.admin = admin
        self.task = task
    }

    /// The URL of an endpoint path on this provider, e.g. `url("/token")`.
    ///
    /// - Parameter path: A path starting with `/`.
    /// - Returns: The issuer with the path appended.
    public func url(_ path: String) -> URL {
        URL(string: self.issuer.absoluteString + path)!
    }

    /// Stops the server and waits until it has shut down.
    public func stop() async {
        self.task.cancel()
        await self.task.value
    }
}

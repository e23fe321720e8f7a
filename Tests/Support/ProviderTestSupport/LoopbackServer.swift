public import Foundation
public import Hummingbird
public import Logging

/// A Hummingbird application on 127.0.0.1 with a port the system picks, running until ``stop()``.
public struct LoopbackServer: Sendable {
    /// The port the system picked.
    public let port: Int
    private let task: Task<Void, Never>

    /// `http://127.0.0.1:<port>`.
    public var base: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Starts `router` and returns once the server listens.
    /// - Throws: `CancellationError` when the server stopped before it listened.
    public static func start<Builder: HTTPResponderBuilder>(
        _ router: Builder,
        logger: Logger = ProviderHarness.silent
    ) async throws -> LoopbackServer
    where Builder.Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: logger
        )
        let task = Task {
            try? await app.run()
            continuation.finish()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            throw CancellationError()
        }
        return LoopbackServer(port: port, task: task)
    }

    /// Stops the server and waits until it has.
    public func stop() async {
        task.cancel()
        await task.value
    }
}

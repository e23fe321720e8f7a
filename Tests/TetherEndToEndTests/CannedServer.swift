import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A tiny HTTP server on 127.0.0.1 that answers `POST /token/<name>` and `GET /<name>` with canned responses:
/// the misbehaving provider a well-behaved development provider cannot be.
final class CannedServer: Sendable {
    struct Answer: Sendable {
        var status: HTTPResponse.Status = .ok
        var contentType: String? = "application/json"
        var body: String
        var headers: [HTTPField.Name: String] = [:]
    }

    let port: Int
    private let task: Task<Void, Never>
    private let answers: AnswerBook

    /// The answers, changeable while the server runs.
    final class AnswerBook: @unchecked Sendable {
        private let lock = NSLock()
        private var answers: [String: Answer]
        init(_ answers: [String: Answer]) { self.answers = answers }
        subscript(name: String) -> Answer? {
            get { lock.withLock { answers[name] } }
            set { lock.withLock { answers[name] = newValue } }
        }
    }

    init(port: Int, task: Task<Void, Never>, answers: AnswerBook) {
        self.port = port
        self.task = task
        self.answers = answers
    }

    /// Sets or replaces the answer for `name`.
    func set(_ name: String, _ answer: Answer) { answers[name] = answer }

    var base: URL { URL(string: "http://127.0.0.1:\(port)")! }

    static func start(_ initial: [String: Answer]) async throws -> CannedServer {
        let router = Router()
        let answers = AnswerBook(initial)
        let respond: @Sendable (String) -> Response = { name in
            guard let answer = answers[name] else { return Response(status: .notFound) }
            var headers = HTTPFields()
            if let contentType = answer.contentType { headers[.contentType] = contentType }
            for (name, value) in answer.headers { headers[name] = value }
            return Response(
                status: answer.status,
                headers: headers,
                body: ResponseBody(byteBuffer: ByteBuffer(string: answer.body))
            )
        }
        router.post("/token/{name}") { _, context in respond(context.parameters.get("name") ?? "") }
        router.get("/{name}") { _, context in respond(context.parameters.get("name") ?? "") }
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            }
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
        return CannedServer(port: port, task: task, answers: answers)
    }

    func stop() async {
        task.cancel()
        await task.value
    }
}

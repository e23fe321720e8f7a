import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ProviderTestSupport

/// A tiny HTTP server on 127.0.0.1 that answers `POST /token/<name>` and `GET /<name>` with canned responses:
/// the misbehaving provider a well-behaved development provider cannot be.
final class CannedServer: Sendable {
    struct Answer: Sendable {
        var status: HTTPResponse.Status = .ok
        var contentType: String? = "application/json"
        var body: String
        var headers: [HTTPField.Name: String] = [:]
    }

    private let server: LoopbackServer
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

    init(server: LoopbackServer, answers: AnswerBook) {
        self.server = server
        self.answers = answers
    }

    var port: Int { server.port }

    /// Sets or replaces the answer for `name`.
    func set(_ name: String, _ answer: Answer) { answers[name] = answer }

    var base: URL { server.base }

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
        return CannedServer(server: try await LoopbackServer.start(router), answers: answers)
    }

    func stop() async { await server.stop() }
}

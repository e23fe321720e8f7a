package import Foundation
package import HTTPTypes
import Tether

/// A closure-backed `HTTPTransport` that counts its requests.
package struct StubTransport: HTTPTransport {
    private let counter = LockedState(0)
    private let handler: @Sendable (HTTPRequest) async throws -> (HTTPResponse, Data)

    package init(_ handler: @escaping @Sendable (HTTPRequest) async throws -> (HTTPResponse, Data)) {
        self.handler = handler
    }

    /// The number of requests sent so far.
    package var requestCount: Int { counter.withLock { $0 } }

    package func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        counter.withLock { $0 += 1 }
        return try await handler(request)
    }

    /// Answers 200 with the current value of `document`, and `Cache-Control` if given.
    package static func serving(_ document: KeyDocument, cacheControl: String? = nil) -> StubTransport {
        StubTransport { _ in
            var response = HTTPResponse(status: .ok)
            response.headerFields[.contentType] = "application/json"
            if let cacheControl { response.headerFields[.cacheControl] = cacheControl }
            return (response, Data(document.json.utf8))
        }
    }

    /// Answers every request with `status` and a JSON error body.
    package static func status(_ status: HTTPResponse.Status) -> StubTransport {
        StubTransport { _ in (HTTPResponse(status: status), Data(#"{"error":"server_error"}"#.utf8)) }
    }

    /// Fails every request below HTTP.
    package static func failing(with error: any Error) -> StubTransport {
        StubTransport { _ in throw error }
    }
}

/// The key document a ``StubTransport`` serves; tests change it to rotate keys.
package final class KeyDocument: Sendable {
    private let state: LockedState<String>

    package init(_ json: String) { state = LockedState(json) }

    package var json: String {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}

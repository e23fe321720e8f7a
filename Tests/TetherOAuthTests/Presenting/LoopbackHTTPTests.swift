import Foundation
import Testing

@testable import TetherOAuth

extension Presenting {
    struct LoopbackHTTPTests {
        @Test func completeGetIsParsed() {
            let bytes = Array("GET /callback?code=a&state=b HTTP/1.1\r\nHost: 127.0.0.1:5000\r\n\r\n".utf8)
            #expect(
                LoopbackHTTP.parse(bytes, limit: 1024) == .request(method: "GET", target: "/callback?code=a&state=b")
            )
        }

        @Test func headWithoutItsEndIsIncompleteUntilTooLarge() {
            let partial = Array("GET /callback HTTP/1.1\r\nHost: x\r\n".utf8)
            #expect(LoopbackHTTP.parse(partial, limit: 1024) == .incomplete)
            #expect(LoopbackHTTP.parse(partial, limit: 10) == .tooLarge)
        }

        @Test(arguments: [
            "NOT HTTP AT ALL\r\n\r\n",
            "GET /callback\r\n\r\n",
            "GET callback HTTP/1.1\r\n\r\n",
            "GET /callback HTTP/2\r\n\r\n",
            "get /callback HTTP/1.1\r\n\r\n",
            "GET /a b HTTP/1.1\r\n\r\n",
            "GET /callback#frag HTTP/1.1\r\n\r\n",
            "GET /caf\u{E9} HTTP/1.1\r\n\r\n",
        ])
        func malformedRequestLinesAreRejected(request: String) {
            #expect(LoopbackHTTP.parse(Array(request.utf8), limit: 1024) == .malformed)
        }

        @Test func targetsSplitIntoPathAndQuery() {
            #expect(LoopbackHTTP.split(target: "/cb?code=1&x=?") == ("/cb", "code=1&x=?"))
            #expect(LoopbackHTTP.split(target: "/cb") == ("/cb", nil))
        }

        @Test func errorParameterIsDetected() {
            #expect(LoopbackHTTP.hasError(query: "error=access_denied&state=s"))
            #expect(LoopbackHTTP.hasError(query: "state=s&error=server_error"))
            #expect(!LoopbackHTTP.hasError(query: "code=1&state=s&error_hint=none"))
        }

        @Test func responsesAreNotCachedAndCloseTheConnection() {
            let response = String(decoding: LoopbackHTTP.response(.ok, html: LoopbackHTTP.successPage), as: UTF8.self)
            #expect(response.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(response.contains("Cache-Control: no-store\r\n"))
            #expect(response.contains("Connection: close\r\n"))
            #expect(response.contains("You can close this window and return to the app."))
        }

        @Test func redactedURLsHaveNoQuery() {
            let url = URL(string: "http://127.0.0.1:5000/callback?code=secret&state=s#frag")!
            #expect(LoopbackPresenter.redacted(url) == "http://127.0.0.1/callback")
        }
    }
}

import Foundation
import Testing
import Tether

/// The reasons an error body gives reach ``AuthorizedClientError/providerReasons`` bounded and safe to show.
struct ProviderReasonsTests {
    @Test func googleAndGraphReasonsInOrder() {
        let google =
            #"{"error":{"errors":[{"reason":"rateLimitExceeded"},{"reason":"quotaExceeded"}],"code":403,"status":"PERMISSION_DENIED"}}"#
        #expect(
            AuthorizedClient.providerReasons(Data(google.utf8))
                == ["rateLimitExceeded", "quotaExceeded", "PERMISSION_DENIED"]
        )
        let graph = #"{"error":{"code":"ErrorAccessDenied","innerError":{"code":"accessDenied"}}}"#
        #expect(AuthorizedClient.providerReasons(Data(graph.utf8)) == ["ErrorAccessDenied", "accessDenied"])
    }

    @Test func otherBodiesGiveNone() {
        for body in ["", "<html></html>", #"{"error":"invalid_token"}"#, #"{"message":"Bad credentials"}"#] {
            #expect(AuthorizedClient.providerReasons(Data(body.utf8)).isEmpty)
        }
    }

    @Test func reasonsAreBoundedAndSanitized() throws {
        let many = (0..<50).map { #"{"reason":"r\#($0)"}"# }.joined(separator: ",")
        let reasons = AuthorizedClient.providerReasons(Data(#"{"error":{"errors":[\#(many)]}}"#.utf8))
        #expect(reasons == (0..<8).map { "r\($0)" })
        let hostile = #"{"error":{"code":"a\u001b[2Jb\u202ec\n\#(String(repeating: "x", count: 500))"}}"#
        let cleaned = try #require(AuthorizedClient.providerReasons(Data(hostile.utf8)).first)
        #expect(!cleaned.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E || $0 == "\n" })
        #expect(cleaned.unicodeScalars.count <= 200)
    }
}

import Foundation
import Testing
import TetherPostgres

/// `WebhookSignature`: Stripe's scheme, checked against a value computed elsewhere, and every way a header is refused.
struct WebhookSignatureTests {
    static let secret = WebhookSecret("whsec_test")
    static let payload = Data(#"{"id":"evt_1","type":"connection.needs_sign_in"}"#.utf8)
    static let sentAt = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func headerIsTheHMACOfTimestampDotBody() {
        // printf '1700000000.{"id":"evt_1","type":"connection.needs_sign_in"}' \
        //   | openssl dgst -sha256 -hmac whsec_test
        let header = WebhookSignature.header(payload: Self.payload, secret: Self.secret, timestamp: Self.sentAt)
        #expect(header == "t=1700000000,v1=\(Self.expected)")
    }

    static let expected = "84d6e769e5c6f8c63a3301ade270ebfa50bd24f6740735854b2cc09d5840bf16"

    @Test func verifiesWhatItSigned() throws {
        let header = WebhookSignature.header(payload: Self.payload, secret: Self.secret, timestamp: Self.sentAt)
        try WebhookSignature.verify(
            payload: Self.payload,
            header: header,
            secret: Self.secret,
            now: Self.sentAt.addingTimeInterval(299)
        )
        // An unknown part and a second, older signature do not matter.
        try WebhookSignature.verify(
            payload: Self.payload,
            header: "v0=zz," + header + ",v1=" + String(repeating: "0", count: 64),
            secret: Self.secret,
            now: Self.sentAt
        )
    }

    @Test(arguments: [
        ("wrong secret", WebhookSecret("whsec_other"), Data(), 0.0, WebhookSignatureError.signatureMismatch),
        ("changed body", WebhookSignatureTests.secret, Data("x".utf8), 0.0, .signatureMismatch),
        ("too old", WebhookSignatureTests.secret, Data(), 301.0, .staleTimestamp),
        ("from the future", WebhookSignatureTests.secret, Data(), -301.0, .staleTimestamp),
    ])
    func refuses(
        _ name: String,
        secret: WebhookSecret,
        extra: Data,
        age: Double,
        error: WebhookSignatureError
    ) {
        let header = WebhookSignature.header(payload: Self.payload, secret: secret, timestamp: Self.sentAt)
        #expect(throws: error, "\(name)") {
            try WebhookSignature.verify(
                payload: Self.payload + extra,
                header: header,
                secret: Self.secret,
                now: Self.sentAt.addingTimeInterval(age)
            )
        }
    }

    @Test(arguments: [
        "", "t=1700000000", "v1=\(WebhookSignatureTests.expected)", "t=abc,v1=\(WebhookSignatureTests.expected)",
        "t=1700000000,v1=nothex", "t=1700000000,v1=abcd",
        "t=1700000000,t=1700000000,v1=\(WebhookSignatureTests.expected)",
        "t=1700000000;v1=\(WebhookSignatureTests.expected)", "garbage",
    ])
    func refusesAMalformedHeader(_ header: String) {
        #expect(throws: WebhookSignatureError.malformedHeader) {
            try WebhookSignature.verify(
                payload: Self.payload,
                header: header,
                secret: Self.secret,
                now: Self.sentAt
            )
        }
    }

    @Test func secretIsNeverShown() {
        #expect("\(Self.secret)" == "WebhookSecret(redacted)")
        #expect(!String(reflecting: Self.secret).contains("whsec_test"))
        var dumped = ""
        dump(Self.secret, to: &dumped)
        #expect(!dumped.contains("whsec_test"))
    }
}

import Foundation

/// A `WWW-Authenticate` challenge (RFC 6750 §3, RFC 9110 §11.6.1): the scheme and its parameters.
public struct AuthenticationChallenge: Sendable, Hashable {
    /// The scheme, such as `Bearer` or `DPoP`.
    public let scheme: String
    /// The parameters, keys lowercased: `realm`, `error`, `error_description`, `scope`, `claims`, …
    public let parameters: [String: String]

    /// `error`: `invalid_token`, `insufficient_scope`, `invalid_request`, `insufficient_claims`, …
    public var error: String? { parameters["error"] }
    /// `error_description`.
    public var errorDescription: String? { parameters["error_description"] }
    /// `scope`: the scopes the resource needs.
    public var scope: String? { parameters["scope"] }

    /// The claims request of a claims challenge (`error="insufficient_claims", claims="…"`), decoded: the JSON to
    /// send as the `claims` parameter of the next token request. `nil` without one, or when it is not base64 (or
    /// base64url) of a JSON object.
    ///
    /// Microsoft Entra sends it on `401` when continuous access evaluation revoked a token or a Conditional Access
    /// policy wants more (https://learn.microsoft.com/entra/identity-platform/claims-challenge); the value is
    /// base64 with padding there, base64url elsewhere, so both are read.
    public var claims: String? {
        guard let encoded = parameters["claims"], !encoded.isEmpty, encoded.utf8.count <= 16 * 1024 else {
            return nil
        }
        var text = encoded.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        guard let data = Base64URL.decode(text),
            (try? JSONSerialization.jsonObject(with: data)) is [String: Any],
            let json = String(data: data, encoding: .utf8)
        else { return nil }
        return json
    }

    /// Whether a `401` with this challenge says the access token itself was refused, so that a new one may help:
    /// `invalid_token` (RFC 6750 §3.1), `insufficient_claims`, no `error` at all (Microsoft Graph answers a refused
    /// token with `Bearer realm="", authorization_uri=…, client_id=…`, https://learn.microsoft.com/graph/errors),
    /// or an `error` nobody defined. Only a challenge naming another cause — `invalid_request` (a malformed
    /// request) or `insufficient_scope` (a token without the scope) — says a new token would not help.
    public var refusesToken: Bool {
        switch error {
        case "invalid_request", "insufficient_scope": false
        default: true
        }
    }

    /// Creates a challenge.
    /// - Parameters:
    ///   - scheme: The scheme.
    ///   - parameters: The parameters.
    public init(scheme: String, parameters: [String: String]) {
        self.scheme = scheme
        self.parameters = parameters
    }

    /// Parses every challenge in a `WWW-Authenticate` value: `Bearer realm="x", error="invalid_token", Basic`.
    /// Malformed input yields what could be read, never a crash.
    /// - Parameter value: The header value.
    /// - Returns: The challenges, in order.
    public static func parse(_ value: String) -> [AuthenticationChallenge] {
        var challenges: [AuthenticationChallenge] = []
        var scanner = Scanner(Array(value.unicodeScalars))
        while !scanner.isAtEnd {
            scanner.skip { $0 == " " || $0 == "," || $0 == "\t" }
            let scheme = scanner.token()
            guard !scheme.isEmpty else {
                scanner.advance()
                continue
            }
            var parameters: [String: String] = [:]
            while true {
                let mark = scanner.position
                scanner.skip { $0 == " " || $0 == "\t" || $0 == "," }
                let name = scanner.token()
                scanner.skip { $0 == " " || $0 == "\t" }
                guard !name.isEmpty, scanner.consume("=") else {
                    scanner.position = mark
                    break
                }
                scanner.skip { $0 == " " || $0 == "\t" }
                let value = scanner.peek == "\"" ? scanner.quoted() : scanner.token(allowingEquals: true)
                parameters[name.lowercased()] = value
            }
            challenges.append(AuthenticationChallenge(scheme: scheme, parameters: parameters))
            scanner.skip { $0 == " " || $0 == "\t" }
            if !scanner.consume(",") { scanner.skip { $0 != "," } }
        }
        return challenges
    }

    private struct Scanner {
        let scalars: [Unicode.Scalar]
        var position = 0

        init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

        var isAtEnd: Bool { position >= scalars.count }
        var peek: Unicode.Scalar? { isAtEnd ? nil : scalars[position] }

        mutating func advance() { position += 1 }

        mutating func skip(while predicate: (Unicode.Scalar) -> Bool) {
            while let next = peek, predicate(next) { position += 1 }
        }

        mutating func consume(_ character: Unicode.Scalar) -> Bool {
            guard peek == character else { return false }
            position += 1
            return true
        }

        /// An RFC 9110 token (or token68 when `allowingEquals`).
        mutating func token(allowingEquals: Bool = false) -> String {
            var result = ""
            while let next = peek, next != " ", next != ",", next != "\t", next != "\"",
                allowingEquals || next != "="
            {
                result.unicodeScalars.append(next)
                position += 1
            }
            return result
        }

        /// A quoted string with backslash escapes; an unterminated one ends at the end of input.
        mutating func quoted() -> String {
            position += 1
            var result = ""
            while let next = peek {
                position += 1
                if next == "\"" { break }
                if next == "\\", let escaped = peek {
                    result.unicodeScalars.append(escaped)
                    position += 1
                } else {
                    result.unicodeScalars.append(next)
                }
            }
            return result
        }
    }
}

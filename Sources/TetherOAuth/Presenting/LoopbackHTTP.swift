import Foundation

/// The little HTTP/1.1 the loopback listener speaks: parse one request head, build one response.
///
/// Pure functions, so the parsing rules are tested without sockets.
enum LoopbackHTTP {
    /// What a connection's bytes amount to so far.
    enum Parsed: Equatable {
        /// The request head has not ended yet.
        case incomplete
        /// The head is longer than allowed.
        case tooLarge
        /// The head ended but is not a request we understand.
        case malformed
        /// A request line: method and request target (origin form, `/path?query`).
        case request(method: String, target: String)
    }

    /// Parses the request head in `bytes`.
    /// - Parameters:
    ///   - bytes: What the connection sent so far.
    ///   - limit: The largest head accepted, in bytes.
    /// - Returns: The parse state.
    static func parse(_ bytes: [UInt8], limit: Int) -> Parsed {
        guard let end = headEnd(bytes) else {
            return bytes.count > limit ? .tooLarge : .incomplete
        }
        guard end <= limit else { return .tooLarge }
        guard let lineEnd = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return .malformed }
        var line = bytes[..<lineEnd]
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        // Only visible ASCII and spaces: no control characters, no raw non-ASCII in the request line.
        guard !line.isEmpty, line.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return .malformed }
        let parts = String(decoding: line, as: UTF8.self).split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return .malformed }
        let method = String(parts[0])
        let target = String(parts[1])
        guard !method.isEmpty, method.allSatisfy({ $0.isASCII && $0.isUppercase }),
            parts[2] == "HTTP/1.1" || parts[2] == "HTTP/1.0",
            target.hasPrefix("/"), !target.contains("#")
        else { return .malformed }
        return .request(method: method, target: target)
    }

    /// The index just past the blank line that ends the head, if it has arrived.
    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\n") {
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") { return index + 2 }
                if index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "\r"),
                    bytes[index + 2] == UInt8(ascii: "\n")
                {
                    return index + 3
                }
            }
            index += 1
        }
        return nil
    }

    /// Splits a request target into its path and query (without the `?`, `nil` when there is none).
    static func split(target: String) -> (path: String, query: String?) {
        guard let mark = target.firstIndex(of: "?") else { return (target, nil) }
        return (String(target[..<mark]), String(target[target.index(after: mark)...]))
    }

    /// Whether a query carries an `error` parameter (RFC 6749 §4.1.2.1).
    static func hasError(query: String) -> Bool {
        query.split(separator: "&").contains { $0 == "error" || $0.hasPrefix("error=") }
    }

    // MARK: Responses

    /// A response's status.
    struct Status: Equatable {
        let code: Int
        let reason: String

        static let ok = Status(code: 200, reason: "OK")
        static let badRequest = Status(code: 400, reason: "Bad Request")
        static let notFound = Status(code: 404, reason: "Not Found")
        static let methodNotAllowed = Status(code: 405, reason: "Method Not Allowed")
        static let requestTimeout = Status(code: 408, reason: "Request Timeout")
    }

    /// The page for a completed sign-in.
    static let successPage = page(
        title: "Signed in",
        heading: "You are signed in",
        text: "You can close this window and return to the app."
    )

    /// The page for a redirect that carries an OAuth error.
    static let errorPage = page(
        title: "Sign-in did not complete",
        heading: "The sign-in did not complete",
        text: "The provider reported an error. You can close this window and return to the app to try again."
    )

    /// The page for a callback whose `state` does not belong to the sign-in in progress.
    static let foreignCallbackPage = page(
        title: "Sign-in response refused",
        heading: "This response does not belong to the sign-in in progress",
        text: "The app is still waiting for its sign-in. Finish it in the window the app opened."
    )

    /// The page for requests that are not the redirect.
    static let notFoundPage = page(
        title: "Not found",
        heading: "Not found",
        text: "This address only receives the sign-in redirect."
    )

    /// The page for requests that cannot be read.
    static let badRequestPage = page(
        title: "Bad request",
        heading: "Bad request",
        text: "The request was not understood."
    )

    /// A complete response with an HTML body; the connection closes after it.
    static func response(_ status: Status, html: String) -> [UInt8] {
        let body = Array(html.utf8)
        let head = [
            "HTTP/1.1 \(status.code) \(status.reason)",
            "Content-Type: text/html; charset=utf-8",
            "Content-Length: \(body.count)",
            "Cache-Control: no-store",
            "Pragma: no-cache",
            "Referrer-Policy: no-referrer",
            "X-Content-Type-Options: nosniff",
            "Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'",
            "Connection: close",
            "",
            "",
        ].joined(separator: "\r\n")
        return Array(head.utf8) + body
    }

    /// A small, self-contained page: no scripts, no external resources, nothing from the request echoed back.
    private static func page(title: String, heading: String, text: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(title)</title>
        <style>
        body { font-family: system-ui, -apple-system, sans-serif; margin: 0; min-height: 100vh; display: flex;
               align-items: center; justify-content: center; background: #f6f7f9; color: #1d1d1f; }
        main { max-width: 28rem; padding: 2rem; text-align: center; }
        h1 { font-size: 1.4rem; font-weight: 600; }
        p { font-size: 1rem; line-height: 1.5; color: #4a4a4f; }
        </style>
        </head>
        <body><main><h1>\(heading)</h1><p>\(text)</p></main></body>
        </html>

        """
    }
}

import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny sign-in page on 127.0.0.1 with the development provider's form contract, for the headless-browser test.
///
/// `GET /authorize?redirect_uri=…&state=…` shows `<form method="post">` with `#username`, `#password` and the
/// `decision` buttons `#allow` / `#deny`; the POST (to the same URL) answers 302 to `redirect_uri` with `code`,
/// `state` and `iss` (or `error=access_denied`). Each connection is served on its own Dispatch thread with
/// 10-second socket timeouts; the accept loop polls every 100 ms until ``stop()``.
final class FormServer: @unchecked Sendable {
    static let username = "ada"
    static let password = "lovelace"
    static let code = "test-code-123"

    let port: UInt16
    private let fd: Int32
    private let lock = NSLock()
    private var isStopped = false
    private var posts: [[String: String]] = []

    init() throws {
        let fd = socket(AF_INET, RawHTTP.socketStream, 0)
        guard fd >= 0 else { throw RawHTTP.Failure(description: "socket failed") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw RawHTTP.Failure(description: "bind failed")
        }
        self.fd = fd
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// The authorization URL that leads back to `redirectURI`.
    func authorizationURL(redirectURI: URL, state: String) -> URL {
        var components = URLComponents(string: "http://127.0.0.1:\(port)/authorize")!
        components.queryItems = [
            URLQueryItem(name: "redirect_uri", value: redirectURI.absoluteString),
            URLQueryItem(name: "state", value: state),
        ]
        return components.url!
    }

    /// The form posts received.
    var receivedPosts: [[String: String]] { lock.withLock { posts } }

    func stop() {
        lock.withLock { isStopped = true }
    }

    private func acceptLoop() {
        defer { close(fd) }
        while !lock.withLock({ isStopped }) {
            var polled = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&polled, 1, 100) > 0 else { continue }
            let client = accept(fd, nil, nil)
            guard client >= 0 else { continue }
            DispatchQueue.global().async { [self] in serve(client) }
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var headEnd: Range<Int>?
        while headEnd == nil {
            let count = recv(client, &buffer, buffer.count, 0)
            guard count > 0, bytes.count < 65536 else { return }
            bytes += buffer[..<count]
            headEnd = Self.find(Array("\r\n\r\n".utf8), in: bytes)
        }
        guard let headEnd else { return }
        let head = String(decoding: bytes[..<headEnd.lowerBound], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        guard requestLine.count == 3 else { return }
        let method = String(requestLine[0])
        let target = String(requestLine[1])
        let contentLength =
            lines.dropFirst()
            .first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        var body = Array(bytes[headEnd.upperBound...])
        while body.count < contentLength {
            let count = recv(client, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            body += buffer[..<count]
        }
        let query = Self.form(URLComponents(string: target)?.percentEncodedQuery ?? "")
        let path = URLComponents(string: target)?.path ?? ""
        let response: String
        switch (method, path) {
        case ("GET", "/authorize"):
            response = Self.response("200 OK", html: Self.signInPage)
        case ("POST", "/authorize"):
            let fields = Self.form(String(decoding: body, as: UTF8.self))
            lock.withLock { posts.append(fields) }
            guard let redirect = query["redirect_uri"], let state = query["state"] else {
                response = Self.response("400 Bad Request", html: "missing parameters")
                break
            }
            guard fields["username"] == Self.username, fields["password"] == Self.password else {
                response = Self.response("401 Unauthorized", html: "wrong password")
                break
            }
            var components = URLComponents(string: redirect)!
            components.queryItems =
                fields["decision"] == "allow"
                ? [
                    URLQueryItem(name: "code", value: Self.code),
                    URLQueryItem(name: "state", value: state),
                    URLQueryItem(name: "iss", value: "http://127.0.0.1:\(port)"),
                ]
                : [URLQueryItem(name: "error", value: "access_denied"), URLQueryItem(name: "state", value: state)]
            response =
                "HTTP/1.1 302 Found\r\nLocation: \(components.url!.absoluteString)\r\nContent-Length: 0\r\n"
                + "Connection: close\r\n\r\n"
        default:
            response = Self.response("404 Not Found", html: "not found")
        }
        let data = Array(response.utf8)
        _ = data.withUnsafeBytes { send(client, $0.baseAddress, $0.count, 0) }
    }

    private static let signInPage = """
        <!DOCTYPE html>
        <html><head><title>Sign in</title></head><body>
        <form method="post">
        <input id="username" name="username" type="text">
        <input id="password" name="password" type="password">
        <button id="allow" name="decision" value="allow" type="submit">Allow</button>
        <button id="deny" name="decision" value="deny" type="submit">Deny</button>
        </form>
        </body></html>
        """

    private static func response(_ status: String, html: String) -> String {
        let body = Array(html.utf8)
        return "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.count)\r\n"
            + "Connection: close\r\n\r\n\(html)"
    }

    private static func form(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Range<Int>? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where Array(haystack[start..<start + needle.count]) == needle {
            return start..<start + needle.count
        }
        return nil
    }
}

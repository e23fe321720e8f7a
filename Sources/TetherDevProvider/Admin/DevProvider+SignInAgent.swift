public import Foundation
public import HTTPTypes

@available(macOS 14, iOS 17, tvOS 17, visionOS 1, *)
extension DevProvider {
    /// Plays a person at the provider's sign-in and device verification pages over real HTTP: loads the page,
    /// fills the form (`username`, `password`, the hidden `request_id`, the `decision` button) and returns where
    /// the provider redirects.
    ///
    /// It is what a demo or a test uses instead of a browser when the browser itself is not under test. It
    /// knows only this provider's form contract, and sends requests through the closure it is given, so the
    /// provider module stays free of HTTP client code.
    ///
    /// ```swift
    /// let agent = DevProvider.SignInAgent { request, body in try await transport.send(request, body: body) }
    /// let (location, _) = try await agent.submit(authorizationURL)   // the redirect with code and state
    /// ```
    public struct SignInAgent: Sendable {
        /// Sends one request without following redirects and returns the response and its body.
        public typealias Send = @Sendable (HTTPRequest, Data?) async throws -> (HTTPResponse, Data)

        /// The user name typed into the form; `ada` by default.
        public var username: String
        /// The password typed into the form; `lovelace` by default.
        public var password: String
        /// Whether the agent clicks Allow (`true`, the default) or Deny.
        public var allows: Bool
        private let send: Send

        /// Creates an agent.
        /// - Parameters:
        ///   - username: The user name to type.
        ///   - password: The password to type.
        ///   - allows: Whether to allow or deny.
        ///   - send: How requests are sent; redirects must not be followed.
        public init(username: String = "ada", password: String = "lovelace", allows: Bool = true, send: @escaping Send)
        {
            self.username = username
            self.password = password
            self.allows = allows
            self.send = send
        }

        /// A failed page load or an unexpected answer.
        public struct Failure: Error, CustomStringConvertible {
            /// What went wrong.
            public let description: String
        }

        /// Opens `url` (an authorization or device verification page) and submits its form.
        /// - Parameters:
        ///   - url: The page.
        ///   - extraFields: More form fields, such as `user_code` on the device verification page.
        /// - Returns: The `Location` of the provider's redirect (`nil` when it answered with a page), and the page
        ///   it answered with.
        /// - Throws: ``Failure`` when the page does not load, or what `send` throws.
        public func submit(
            _ url: URL,
            extraFields: [String: String] = [:]
        ) async throws -> (location: URL?, page: String) {
            let (pageResponse, pageBody) = try await send(HTTPRequest(method: .get, url: url), nil)
            guard pageResponse.status.code == 200 else {
                throw Failure(description: "GET \(url.path) answered HTTP \(pageResponse.status.code)")
            }
            let page = String(decoding: pageBody, as: UTF8.self)
            var fields = Self.hiddenFields(in: page)
            fields["username"] = username
            fields["password"] = password
            fields["decision"] = allows ? "allow" : "deny"
            fields.merge(extraFields) { _, new in new }
            let action = Self.formAction(in: page).flatMap { URL(string: $0, relativeTo: url)?.absoluteURL } ?? url
            var post = HTTPRequest(method: .post, url: action)
            post.headerFields[.contentType] = "application/x-www-form-urlencoded"
            let body = fields.sorted { $0.key < $1.key }
                .map { "\(Self.formEncode($0.key))=\(Self.formEncode($0.value))" }
                .joined(separator: "&")
            let (response, responseBody) = try await send(post, Data(body.utf8))
            let location = response.headerFields[.location].flatMap {
                URL(string: $0, relativeTo: action)?.absoluteURL
            }
            return (location, String(decoding: responseBody, as: UTF8.self))
        }

        /// Signs in at an authorization URL and returns the redirect (the client's callback with `code` and
        /// `state`, or an `error`).
        /// - Parameter authorizationURL: The authorization request.
        /// - Returns: The callback URL.
        /// - Throws: ``Failure`` when the provider answered with a page instead of a redirect.
        public func authorize(_ authorizationURL: URL) async throws -> URL {
            let (location, page) = try await submit(authorizationURL)
            guard let location else {
                throw Failure(description: "The provider answered with a page, not a redirect: \(page.prefix(200))")
            }
            return location
        }

        /// The `name` and `value` of each hidden `input` in a page.
        /// - Parameter page: The HTML.
        /// - Returns: The fields by name.
        public static func hiddenFields(in page: String) -> [String: String] {
            var fields: [String: String] = [:]
            for tag in tags(named: "input", in: page) {
                let attributes = attributes(of: tag)
                guard attributes["type"]?.lowercased() == "hidden", let name = attributes["name"] else { continue }
                fields[name] = attributes["value"] ?? ""
            }
            return fields
        }

        static func formAction(in page: String) -> String? {
            tags(named: "form", in: page).first.flatMap { attributes(of: $0)["action"] }
        }

        static func tags(named name: String, in page: String) -> [String] {
            var result: [String] = []
            var rest = page[...]
            while let start = rest.range(of: "<\(name)", options: .caseInsensitive) {
                guard let end = rest[start.upperBound...].firstIndex(of: ">") else { break }
                result.append(String(rest[start.lowerBound...end]))
                rest = rest[rest.index(after: end)...]
            }
            return result
        }

        static func attributes(of tag: String) -> [String: String] {
            var attributes: [String: String] = [:]
            var rest = tag[...]
            // name="value" pairs; the provider's pages always quote with double quotes.
            while let equals = rest.firstIndex(of: "=") {
                let name = rest[..<equals].split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "<" }).last
                let afterEquals = rest[rest.index(after: equals)...].drop { $0 == " " }
                guard let name, afterEquals.first == "\"" else {
                    rest = rest[rest.index(after: equals)...]
                    continue
                }
                let valueStart = afterEquals.index(after: afterEquals.startIndex)
                guard let valueEnd = afterEquals[valueStart...].firstIndex(of: "\"") else { break }
                attributes[name.lowercased()] = unescape(String(afterEquals[valueStart..<valueEnd]))
                rest = afterEquals[afterEquals.index(after: valueEnd)...]
            }
            return attributes
        }

        static func unescape(_ value: String) -> String {
            value.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
                .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&amp;", with: "&")
        }

        static func formEncode(_ value: String) -> String {
            let unreserved = CharacterSet(
                charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~"
            )
            return value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
        }
    }
}

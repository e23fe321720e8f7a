import Foundation
import HTTPTypes
import Tether
import TetherOAuth
import TetherURLSession

/// Plays a person at the development provider's sign-in page over real HTTP: loads the page, fills the form
/// (`#username`, `#password`, `#allow` / `#deny`) and returns where the provider redirects.
struct FormBrowser: Sendable {
    var username = "ada"
    var password = "lovelace"
    var decision = "allow"
    let transport = URLSessionTransport()

    /// Opens `url` (an authorization or device verification page) and submits the form.
    /// - Returns: The `Location` of the provider's redirect, or `nil` when it answered with a page.
    func submit(_ url: URL, extraFields: [String: String] = [:]) async throws -> (location: URL?, page: String) {
        let (pageResponse, pageBody) = try await transport.send(HTTPRequest(method: .get, url: url), body: nil)
        guard pageResponse.status.code == 200 else {
            throw Failure("GET \(url.path) answered \(pageResponse.status.code)")
        }
        let page = String(decoding: pageBody, as: UTF8.self)
        var fields = Self.hiddenFields(in: page)
        fields["username"] = username
        fields["password"] = password
        fields["decision"] = decision
        fields.merge(extraFields) { _, new in new }
        let action = Self.formAction(in: page).flatMap { URL(string: $0, relativeTo: url)?.absoluteURL } ?? url
        var post = HTTPRequest(method: .post, url: action)
        post.headerFields[.contentType] = "application/x-www-form-urlencoded"
        let body = fields.sorted { $0.key < $1.key }
            .map { "\(Self.encode($0.key))=\(Self.encode($0.value))" }
            .joined(separator: "&")
        let (response, responseBody) = try await transport.send(post, body: Data(body.utf8))
        let location = response.headerFields[.location].flatMap { URL(string: $0, relativeTo: action)?.absoluteURL }
        return (location, String(decoding: responseBody, as: UTF8.self))
    }

    /// A presenter whose "user" is this browser; it records the authorization URLs it was shown.
    func presenter(
        redirectURI: URL = URL(string: "http://127.0.0.1:45678/callback")!,
        shown: LockedURLs = LockedURLs()
    ) -> ProgrammaticPresenter {
        ProgrammaticPresenter(redirectURI: redirectURI) { url in
            shown.append(url)
            let (location, page) = try await self.submit(url)
            guard let location else { throw Failure("The provider answered with a page: \(page.prefix(300))") }
            return location
        }
    }

    static func hiddenFields(in page: String) -> [String: String] {
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
        let pattern = #"([a-zA-Z_:-]+)\s*=\s*"([^"]*)""#
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [:] }
        let range = NSRange(tag.startIndex..., in: tag)
        for match in regex.matches(in: tag, range: range) {
            guard let name = Range(match.range(at: 1), in: tag), let value = Range(match.range(at: 2), in: tag) else {
                continue
            }
            attributes[tag[name].lowercased()] = unescape(String(tag[value]))
        }
        return attributes
    }

    static func unescape(_ value: String) -> String {
        value.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    static func encode(_ value: String) -> String {
        value.addingPercentEncoding(
            withAllowedCharacters: CharacterSet(
                charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~"
            )
        ) ?? ""
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
